"""Review tasks made from stored logbooks, answered by registered identities, kept in the store.

:func:`create_stored_task` builds a blinded task for a claim with a ``human`` check from the
files a logbook's recorded runs produced (:func:`select_items`: the one place that chooses
them), copies those files into the task folder (under their sha256, so the page never shows a
name), stores the task and its reviewers (:mod:`openrepro.store.tables_review`), and writes the
folder (task.json with the task's ``stored_id``, items.csv) that ``openrepro review serve``
serves. :class:`StoredAnswerLog` puts each answer in the store in its own transaction before
the page moves on, then appends it to answers.csv (the CSV export stays as it was).

**Selection.** Only files produced by a recorded run that exited 0 are candidates; a path is
matched with :func:`fnmatch.fnmatch` against ``pattern`` (the method's outputs: the ``B`` side,
or the single output of a ``usable`` task) and ``baseline`` (the baseline's outputs, ``A``); a
pair is an ``A`` file and a ``B`` file with the same file name. An image array a run saved
(``.npy``: ``N x H x W`` or ``N x H x W x 3``, integers 0-255 or floats 0-1; Trackio records
``.npy`` outputs of a run, not ``.png`` ones) is ``N`` items, ``<file>#<i>``, each written to
the task folder as a PNG; with one array file on each side, pairs go by index. A participant's
evidence map (files named per claim) can feed :func:`select_items` the same way later.

**Roles.** Each reviewer is a registered participant of the challenge; their role in the task is
``self`` (the logbook's participant), ``team`` (same team as the participant, confirmed or not),
``organizer`` (an organizer), else ``invited``. Only ``organizer`` and ``invited`` reviewers are
independent (:mod:`openrepro.evidence.human`).
"""

from __future__ import annotations

import shutil
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

import numpy as np
from PIL import Image
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.claims.checks.records import Check, HumanScale, Relation
from openrepro.claims.service import resolve_claim
from openrepro.errors import CheckError, ConfigError, NotFoundError
from openrepro.identity.service import ensure_writable
from openrepro.logbooks.records import FileRef, LogbookRecord
from openrepro.logbooks.submit import blob_path
from openrepro.review.task import (
    IMAGE_SUFFIXES,
    Answer,
    AnswerLog,
    ReviewItem,
    ReviewTask,
    create_task_from_items,
    load_task,
)
from openrepro.store import Logbook, Participant
from openrepro.store.judge_queue import enqueue
from openrepro.store.tables_review import ReviewAnswerRow, ReviewerRow, ReviewTaskRow

__all__ = [
    "ARRAY_SUFFIXES",
    "ItemSource",
    "StoredAnswerLog",
    "StoredTask",
    "add_reviewer",
    "create_stored_task",
    "reviewer_role",
    "select_items",
]

ARRAY_SUFFIXES = (".npy",)
_MAX_ARRAY_ITEMS = 1000
_OPTIONS = {HumanScale.usable: ["usable", "not usable"], HumanScale.preference: None}


class ItemSource(BaseModel):
    """One item: the method's output ``b`` and, for a pair, the baseline's ``a``."""

    id: str
    b: FileRef
    a: FileRef | None = None
    b_index: int | None = None  # the element of an image array
    a_index: int | None = None


class StoredTask(BaseModel):
    id: int
    name: str
    folder: str
    claim: str
    logbook_id: int
    items: int
    reviewers: dict[str, str]  # handle -> role


def _array(path: Path) -> np.ndarray:
    try:
        data: np.ndarray = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path.name} is not an image array (.npy): {exc}") from exc
    if data.ndim not in (3, 4) or (data.ndim == 4 and data.shape[3] not in (1, 3, 4)):
        raise ConfigError(f"{path.name} is not an array of images (shape {data.shape})")
    return data


def select_items(
    record: LogbookRecord,
    *,
    pattern: str,
    baseline: str = "",
    count: dict[str, int] | None = None,
) -> list[ItemSource]:
    """The items of a task from the files the logbook's successful recorded runs produced
    (module docstring): single outputs matching ``pattern``, or pairs by file name when
    ``baseline`` is given. ``count`` gives the number of images of each array file (by
    sha256); an array file not in it counts as one item."""
    produced: dict[str, FileRef] = {}
    kinds = (*IMAGE_SUFFIXES, *ARRAY_SUFFIXES)  # the page shows images (texts: not yet)
    for run in record.runs:
        if run.exit_code != 0:
            continue
        for ref in run.produced:
            if PurePosixPath(ref.path).suffix.lower() in kinds:
                produced.setdefault(ref.path, ref)
    sizes = count or {}

    def expand(glob: str) -> dict[str, tuple[FileRef, int | None]]:
        out: dict[str, tuple[FileRef, int | None]] = {}
        for path, ref in sorted(produced.items()):
            if not fnmatch(path, glob):
                continue
            name = PurePosixPath(path).name
            if PurePosixPath(path).suffix.lower() in ARRAY_SUFFIXES:
                for i in range(min(sizes.get(ref.sha256, 1), _MAX_ARRAY_ITEMS)):
                    out[f"{name}#{i:03d}"] = (ref, i)
            else:
                out[name] = (ref, None)
        return out

    ours = expand(pattern)
    if not baseline:
        return [ItemSource(id=n, b=r, b_index=i) for n, (r, i) in sorted(ours.items())]
    theirs = expand(baseline)
    files = {r.sha256 for r, _ in ours.values()}, {r.sha256 for r, _ in theirs.values()}
    if len(files[0]) == 1 and len(files[1]) == 1 and all(i is not None for _, i in ours.values()):
        by_index = {i: (n, r) for n, (r, i) in theirs.items()}
        return [
            ItemSource(id=f"#{i:03d}", b=r, b_index=i, a=by_index[i][1], a_index=i)
            for n, (r, i) in sorted(ours.items())
            if i in by_index
        ]
    return [
        ItemSource(id=n, a=theirs[n][0], a_index=theirs[n][1], b=ours[n][0], b_index=ours[n][1])
        for n in sorted(set(ours) & set(theirs))
    ]


def _array_sizes(record: LogbookRecord, files_dir: Path) -> dict[str, int]:
    """sha256 -> number of images, for each image array a successful run produced."""
    out: dict[str, int] = {}
    for run in record.runs:
        for ref in run.produced:
            if run.exit_code == 0 and PurePosixPath(ref.path).suffix.lower() in ARRAY_SUFFIXES:
                blob = blob_path(files_dir, ref.sha256)
                if blob.is_file():
                    try:
                        out[ref.sha256] = int(_array(blob).shape[0])
                    except ConfigError:
                        continue  # not an image array: not an item
    return out


def reviewer_role(person: Participant, owner: Participant) -> str:
    """The role of ``person`` in a task on ``owner``'s logbook (module docstring)."""
    if person.id == owner.id:
        return "self"
    if person.team and person.team == owner.team:
        return "team"
    if person.role == "organizer":
        return "organizer"
    return "invited"


def _person(session: Session, ctx: ChallengeContext, handle: str) -> Participant:
    row = session.scalar(
        select(Participant).where(
            Participant.challenge_id == ctx.challenge_id, Participant.handle == handle
        )
    )
    if row is None:
        raise NotFoundError(f"no registered reviewer {handle!r} (register them first)")
    return row


def _copy(files_dir: Path, ref: FileRef, index: int | None, into: Path) -> str:
    """The file (or the ``index``-th image of an array) in the task folder, under its hash."""
    source = blob_path(files_dir, ref.sha256)
    if not source.is_file():
        raise NotFoundError(f"the logbook's file {ref.path} is not in the store ({source.name})")
    if index is None:
        target = into / (ref.sha256 + PurePosixPath(ref.path).suffix.lower())
        if not target.exists():
            shutil.copyfile(source, target)
        return str(target.resolve())
    target = into / f"{ref.sha256}-{index:03d}.png"
    if not target.exists():
        image = _array(source)[index]
        if image.dtype.kind == "f":
            image = np.clip(image * 255, 0, 255)
        pixels = np.asarray(image, dtype=np.uint8)
        Image.fromarray(pixels[..., 0] if pixels.ndim == 3 and pixels.shape[2] == 1 else pixels
                        ).save(target)  # fmt: skip
    return str(target.resolve())


def create_stored_task(
    ctx: ChallengeContext,
    claim: str,
    logbook_id: int,
    folder: Path,
    *,
    pattern: str,
    baseline: str = "",
    reviewers: list[str],
    name: str = "",
    seed: int = 0,
    repeat_share: float = 0.2,
) -> StoredTask:
    """A blinded task for ``claim`` (``<paper>/<key>``) on logbook ``logbook_id``, stored with
    its ``reviewers`` (handles), and its folder (module docstring)."""
    if not reviewers:
        raise ConfigError("name at least one reviewer (--reviewer)")
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        row, paper = resolve_claim(session, ctx.challenge_id, claim)
        if not row.check:
            raise CheckError(f"claim {claim} has no check; give it a human check first")
        check = Check.from_json(row.check)
        if check.relation is not Relation.human:
            raise CheckError(f"claim {claim} has a {check.relation.value} check, not a human one")
        book = session.get(Logbook, logbook_id)
        if book is None or book.paper_id != paper.id:
            raise NotFoundError(f"no logbook {logbook_id} of paper {paper.venue_id}")
        owner = session.get(Participant, book.participant_id)
        assert owner is not None
        judgement = check.judgement()
        if judgement.scale is HumanScale.preference and not baseline:
            raise ConfigError("a preference task needs the baseline's files (--baseline)")
        record = LogbookRecord.model_validate(book.manifest)
        files_dir = ctx.settings.resolved_files_dir()
        sources = select_items(record, pattern=pattern, baseline=baseline,
                               count=_array_sizes(record, files_dir))  # fmt: skip
        if not sources:
            raise ConfigError(
                f"no file produced by a successful recorded run of logbook {logbook_id} "
                f"matches {pattern!r}" + (f" and {baseline!r} by name" if baseline else "")
            )
        task_name = name or f"{paper.venue_id}-{row.key}-logbook{logbook_id}".replace("/", "-")
        if session.scalar(select(ReviewTaskRow.id).where(ReviewTaskRow.name == task_name)):
            raise ConfigError(f"a review task named {task_name!r} exists already")
        people = {h: _person(session, ctx, h) for h in dict.fromkeys(reviewers)}
        files = folder / "files"
        files.mkdir(parents=True, exist_ok=True)
        items = [
            ReviewItem(id=s.id, a=_copy(files_dir, s.a, s.a_index, files), b=_copy(files_dir, s.b,
                       s.b_index, files))
            if s.a is not None
            else ReviewItem(id=s.id, a=_copy(files_dir, s.b, s.b_index, files))
            for s in sources
        ]  # fmt: skip
        options = _OPTIONS[judgement.scale]
        stored = ReviewTaskRow(
            name=task_name, logbook_id=book.id, claim_id=row.id,
            question=judgement.shown_question(), scale=judgement.scale.value,
            options=options or ["left", "right", "same"], seed=seed, repeat_share=repeat_share,
            items=[{"id": s.id, "b": s.b.path, "b_sha256": s.b.sha256, "b_index": s.b_index,
                    "a": s.a.path if s.a else "", "a_sha256": s.a.sha256 if s.a else "",
                    "a_index": s.a_index}
                   for s in sources],
            check_revision=check.revision,
        )  # fmt: skip
        session.add(stored)
        session.flush()
        roles = {h: reviewer_role(p, owner) for h, p in people.items()}
        for handle, person in people.items():
            session.add(ReviewerRow(task_id=stored.id, participant_id=person.id,
                                    role=roles[handle]))  # fmt: skip
        create_task_from_items(
            folder, items, question=judgement.shown_question(), options=options,
            name=task_name, seed=seed, repeat_share=repeat_share, stored_id=stored.id,
        )  # fmt: skip
        return StoredTask(id=stored.id, name=task_name, folder=str(folder),
                          claim=f"{paper.venue_id}/{row.key}", logbook_id=book.id,
                          items=len(items), reviewers=roles)  # fmt: skip


def add_reviewer(ctx: ChallengeContext, folder: Path, handle: str) -> str:
    """Register ``handle`` as a reviewer of the stored task in ``folder``; returns the role."""
    task = _stored(folder)
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        row = session.get(ReviewTaskRow, task.stored_id)
        if row is None:
            raise NotFoundError(f"review task {task.name!r} is not in this challenge's store")
        book = session.get(Logbook, row.logbook_id)
        assert book is not None
        owner = session.get(Participant, book.participant_id)
        person = _person(session, ctx, handle)
        assert owner is not None
        found = session.scalar(
            select(ReviewerRow).where(
                ReviewerRow.task_id == row.id, ReviewerRow.participant_id == person.id
            )
        )
        if found is not None:
            return found.role
        role = reviewer_role(person, owner)
        session.add(ReviewerRow(task_id=row.id, participant_id=person.id, role=role))
        return role


def _stored(folder: Path) -> ReviewTask:
    task = load_task(folder)
    if task.stored_id is None:
        raise ConfigError(f"task {task.name!r} was not made from a stored logbook")
    return task


class StoredAnswerLog(AnswerLog):
    """The answers of one reviewer of a stored task: each in the store, in its own transaction,
    before it is appended to answers.csv (module docstring)."""

    def __init__(self, ctx: ChallengeContext, task: ReviewTask, handle: str) -> None:
        if task.stored_id is None:
            raise ConfigError(f"task {task.name!r} was not made from a stored logbook")
        super().__init__(task)
        self.ctx = ctx
        self.task_id = task.stored_id
        with ctx.store.session() as session:
            person = _person(session, ctx, handle)
            found = session.scalar(
                select(ReviewerRow).where(
                    ReviewerRow.task_id == self.task_id, ReviewerRow.participant_id == person.id
                )
            )
            if found is None:
                raise NotFoundError(
                    f"{handle!r} is not a reviewer of task {task.name!r} (review invite)"
                )
            self.reviewer_id = found.id

    def answered(self, reviewer: str) -> set[int]:
        with self.ctx.store.session() as session:
            return set(
                session.scalars(
                    select(ReviewAnswerRow.slot).where(
                        ReviewAnswerRow.task_id == self.task_id,
                        ReviewAnswerRow.reviewer_id == self.reviewer_id,
                    )
                )
            )

    def keep(self, answer: Answer) -> bool:
        with self.ctx.store.session() as session:
            session.add(
                ReviewAnswerRow(
                    task_id=self.task_id,
                    reviewer_id=self.reviewer_id,
                    slot=answer.slot,
                    item=answer.item,
                    shown_order=answer.shown_order,
                    answer=answer.answer,
                    shown_answer=answer.shown_answer,
                    repeat=answer.repeat,
                    seconds=answer.seconds,
                )
            )
            task = session.get(ReviewTaskRow, self.task_id)
            assert task is not None
            session.flush()  # the answer's id names the queue item's input
            enqueue(session, [task.logbook_id], reason="review", claim_ids=[task.claim_id],
                    suffix=f"review:{answer.slot}:{self.reviewer_id}:{answer.repeat}")  # fmt: skip
        return True
