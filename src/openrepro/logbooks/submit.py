"""`openrepro submit`: validate a logbook, keep its files by content, store its record.

Sources: a folder (a Trackio project holding ``.trackio/logbook/``, a ``logbook/`` folder, or an
openrepro bundle with ``manifest.json``) or an archive of one (``.tar.gz``, ``.tgz``, ``.tar``,
``.zip``), which is pre-scanned and unpacked into a fresh folder first, or a logbook published
as a Space (``space:owner/name``, ``hf:owner/name`` or ``https://huggingface.co/spaces/owner/name``;
see :mod:`openrepro.logbooks.space`), downloaded into a fresh folder under the same caps.

One submission is one transaction: the record is checked against the caps of
:mod:`openrepro.logbooks.limits` and the participant's ``participant_max_bytes``, its new files
are staged beside the content-addressed store (``files/sha256/ab/abcdef...``) by
:func:`staged_logbook` and moved in by :func:`store_logbook`, which writes the record in its
caller's transaction (:func:`submit_logbook` opens one of its own; ``openrepro submit`` stores
the proposed checks and queues the judging in the same one, :mod:`openrepro.intake`); on any
error the staged files are removed and nothing is left in the database. A submission never
deletes a stored blob (a concurrent one may share it). The revision is a hash of the normalised
record, so submitting identical content again is a no-op, and a changed logbook is a new
revision (old ones are kept).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.errors import LogbookError
from openrepro.identity.service import check_not_frozen
from openrepro.logbooks.bundle import file_ref
from openrepro.logbooks.limits import check_record
from openrepro.logbooks.linking import link_paper
from openrepro.logbooks.manifest import CHECKS_FILE, EVIDENCE_MAP_FILE, read_evidence_map
from openrepro.logbooks.records import LogbookRecord, PaperRef, changed_after_run
from openrepro.logbooks.trackio_reader import page_claims
from openrepro.store import Claim, Logbook, Participant

__all__ = [
    "ARCHIVE_SUFFIXES",
    "StagedLogbook",
    "SubmitReport",
    "blob_path",
    "read_logbook",
    "staged_logbook",
    "store_logbook",
    "submit_logbook",
    "with_evidence_map",
]

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")
HANDLE_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


class EvidenceSummary(BaseModel):
    runs: list[dict[str, object]] = Field(default_factory=list)
    metrics: dict[str, int] = Field(default_factory=dict)  # key -> number of values
    artifacts: list[str] = Field(default_factory=list)
    tables: list[dict[str, object]] = Field(default_factory=list)  # addressable table cells


class SubmitReport(BaseModel):
    """What `submit` stored, and what the judge will see as evidence vs testimony."""

    status: Literal["new", "new-revision", "unchanged"]
    logbook_id: int
    paper_id: str
    participant: str
    revision: str
    format: str
    claims: list[str]
    files: int
    bytes: int
    evidence: EvidenceSummary
    testimony: list[str]  # first line of each statement
    warnings: list[str] = Field(default_factory=list)
    linked_by: str = ""  # the reference that named the paper, e.g. "tag 'XYZ' (...)"
    side_files: list[dict[str, object]] = Field(default_factory=list)  # claims copies, status...


def _find_root(folder: Path) -> tuple[Path, str]:
    """The logbook inside ``folder`` (searched one level down for a single top folder)."""
    candidates = [folder]
    children = [c for c in folder.iterdir() if c.is_dir() and not c.is_symlink()]
    if len(children) == 1 and not any(f.is_file() for f in folder.iterdir()):
        candidates.append(children[0])
    from openrepro.logbooks.space import is_gradio_space

    for root in candidates:
        if (root / "manifest.json").is_file():
            return root, "bundle"
        if (root / ".trackio" / "logbook" / "logbook.json").is_file() or (
            root / "logbook.json"
        ).is_file():
            return root, "trackio"
        if is_gradio_space(root):
            return root, "gradio-space"
    raise LogbookError(
        f"{folder}: neither a Trackio logbook (.trackio/logbook/logbook.json), a Gradio-Space "
        "logbook (app.py and pages/*.md) nor an openrepro bundle (manifest.json)"
    )


@contextmanager
def _unpacked(source: Path, ctx: ChallengeContext) -> Iterator[Path]:
    """``source`` itself, or a fresh folder with the archive's checked contents (removed after)."""
    if source.is_dir():
        yield source
        return
    if not source.is_file():
        raise LogbookError(f"{source}: no such file or folder")
    if not source.name.lower().endswith(ARCHIVE_SUFFIXES):
        raise LogbookError(f"{source}: not a folder or a {', '.join(ARCHIVE_SUFFIXES)} archive")
    from openrepro.logbooks.archive import ArchiveLimits, safe_extract

    limits = ArchiveLimits(
        max_total_bytes=ctx.settings.archive_max_bytes,
        max_members=ctx.settings.archive_max_members,
    )
    with tempfile.TemporaryDirectory(prefix="openrepro-submit-") as parent:
        yield safe_extract(source, Path(parent), limits)


@contextmanager
def _downloaded(space_id: str, ctx: ChallengeContext) -> Iterator[Path]:
    """A fresh folder with the logbook files of Space ``space_id`` (removed after)."""
    from openrepro.logbooks.space import download_space

    with tempfile.TemporaryDirectory(prefix="openrepro-space-") as parent:
        yield download_space(
            space_id,
            Path(parent) / "space",
            max_bytes=ctx.settings.archive_max_bytes,
            max_files=ctx.settings.archive_max_members,
            token=False,  # never the server's token: a submitted Space must be public
        )


def read_logbook(root: Path) -> LogbookRecord:
    """Read the Trackio logbook or bundle in ``root`` (a folder)."""
    found, kind = _find_root(root)
    if kind == "bundle":
        from openrepro.logbooks.bundle import read_bundle

        return read_bundle(found)
    if kind == "gradio-space":
        from openrepro.logbooks.space import read_gradio_space

        return read_gradio_space(found)
    from openrepro.logbooks.trackio_reader import read_trackio_logbook

    return read_trackio_logbook(found)


def blob_path(files_dir: Path, sha256: str) -> Path:
    return files_dir / "sha256" / sha256[:2] / sha256


def _stage_files(record: LogbookRecord, root: Path, files_dir: Path) -> Path:
    """Copy the record's files not yet in the content-addressed store into a fresh staging
    folder inside ``files_dir`` (named by hash); :func:`_place` moves them in. Nothing in the
    store itself is written here, so a failing submission never touches a blob that another,
    concurrent submission may share."""
    files_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=files_dir, prefix=".incoming-"))
    try:
        for ref in record.files:
            if blob_path(files_dir, ref.sha256).exists():
                continue
            made = record.embedded(ref.path)  # an image decoded from a figure cell
            with (staging / ref.sha256).open("wb") as out:
                if made is not None:
                    out.write(made)
                else:
                    with (root / ref.path).open("rb") as src:
                        shutil.copyfileobj(src, out)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise LogbookError(f"cannot store the logbook's files in {files_dir}: {exc}") from exc
    return staging


def _place(staging: Path, files_dir: Path) -> None:
    """Move staged blobs into the store (atomic renames; a blob that appeared meanwhile has the
    same content, so replacing it is harmless). Blobs are never deleted by a submission."""
    try:
        for staged in staging.iterdir():
            target = blob_path(files_dir, staged.name)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged, target)
    except OSError as exc:
        raise LogbookError(f"cannot store the logbook's files in {files_dir}: {exc}") from exc


def _summary(record: LogbookRecord) -> tuple[EvidenceSummary, list[str]]:
    evidence = EvidenceSummary(
        runs=[
            {
                "id": r.id,
                "command": " ".join(r.command),
                "exit_code": r.exit_code,
                "duration_s": r.duration_s,
                "produced": [f.path for f in r.produced],
            }
            for r in record.runs
        ],
        artifacts=[a.file.path for a in record.artifacts],
        tables=[
            {
                "table": t.table, "source": t.source, "format": t.format, "path": t.path,
                "cell": t.cell, "run": t.run, "columns": t.columns, "rows": t.rows,
            }
            for t in record.tables
        ],
    )  # fmt: skip
    for metric in record.metrics:
        evidence.metrics[metric.key] = evidence.metrics.get(metric.key, 0) + 1
    testimony = [
        next((line.strip() for line in t.text.splitlines() if line.strip()), "")[:160]
        for t in record.testimony
    ]
    return evidence, testimony


def _check_participant_bytes(
    ctx: ChallengeContext, session: Session, person: Participant, stored: int
) -> None:
    """Refuse a revision that would take the participant past ``participant_max_bytes``."""
    used = int(
        session.scalar(
            select(func.coalesce(func.sum(Logbook.stored_bytes), 0)).where(
                Logbook.participant_id == person.id
            )
        )
        or 0
    )
    cap = ctx.settings.participant_max_bytes
    if used + stored > cap:
        raise LogbookError(
            f"{person.handle!r} keeps {used:,} bytes on the board; this revision ({stored:,} "
            f"bytes) would pass the participant's limit of {cap:,}"
        )


def _check_handle(handle: str) -> str:
    if not handle or len(handle) > 200 or not set(handle) <= HANDLE_CHARS:
        raise LogbookError(
            f"invalid participant handle {handle!r}: letters, digits, '.', '_' or '-'"
        )
    return handle


@dataclass(frozen=True)
class StagedLogbook:
    """A read and checked logbook whose new files wait beside the content-addressed store
    (:func:`staged_logbook`); :func:`store_logbook` writes it in the caller's transaction."""

    record: LogbookRecord
    participant: str
    stored: int  # bytes it keeps on the board: the record and its files
    staging: Path
    files_dir: Path
    paper: str | None = None


@contextmanager
def staged_logbook(
    ctx: ChallengeContext,
    source: Path | str,
    *,
    handle: str | None = None,
    paper: str | None = None,
    checks_file: str = CHECKS_FILE,
) -> Iterator[StagedLogbook]:
    """Read, check and stage one logbook (see the module docstring); the staged files are
    removed on leaving (those :func:`store_logbook` placed are in the store by then).

    A ``str`` naming a Space (:func:`~openrepro.logbooks.space.parse_space_ref`) is downloaded;
    any other ``str``, and every :class:`~pathlib.Path`, is a local folder or archive. The
    participant's proposed checks (``checks_file`` at the logbook's root) are kept as a file."""
    from openrepro.logbooks.space import parse_space_ref, read_space_logbook, space_url

    space_id = parse_space_ref(source) if isinstance(source, str) else None
    opened = _downloaded(space_id, ctx) if space_id else _unpacked(Path(source), ctx)
    with opened as folder:
        if space_id:
            root, where = folder, space_url(space_id)
            record = read_space_logbook(folder).model_copy(update={"source": where})
        else:
            root, _ = _find_root(folder)  # file paths in the record are relative to it
            record = read_logbook(folder).model_copy(update={"source": str(source)})
        record = with_evidence_map(record, root, checks_file=checks_file)
        participant = _check_handle(handle or record.participant or "")
        for field, value in (("paper id", record.paper_id or ""), ("title", record.title)):
            if "\x00" in value:  # PostgreSQL text cannot hold it; SQLite would store it
                raise LogbookError(f"{source}: the logbook's {field} contains a NUL character")
        stored = check_record(record, str(source)) + sum(f.size for f in record.files)
        files_dir = ctx.settings.resolved_files_dir()
        staging = _stage_files(record, root, files_dir)
        try:
            yield StagedLogbook(record=record, participant=participant, stored=stored,
                                staging=staging, files_dir=files_dir, paper=paper)  # fmt: skip
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def submit_logbook(
    ctx: ChallengeContext,
    source: Path | str,
    *,
    handle: str | None = None,
    paper: str | None = None,
) -> SubmitReport:
    """Validate and store one logbook in a transaction of its own (see the module docstring):
    :func:`staged_logbook`, then :func:`store_logbook`. ``openrepro submit`` also takes the
    proposed checks and queues the judging in the same transaction (:mod:`openrepro.intake`).

    The paper is ``paper`` when given, else the one the logbook names
    (:func:`~openrepro.logbooks.linking.link_paper`).
    """
    with (
        staged_logbook(ctx, source, handle=handle, paper=paper) as staged,
        ctx.store.session() as session,
    ):
        return store_logbook(session, ctx, staged)


def changed_file_warnings(record: LogbookRecord) -> list[str]:
    """One warning per file that changed after the run that wrote it, naming the run: its
    values no longer count as that run's evidence (``artifact_changed_after_run``)."""
    warnings = []
    for artifact, recorded, run in changed_after_run(record):
        who = f"run {run.id} (`{' '.join(run.command)}`)" if run else "its artifact cell"
        warnings.append(
            f"{artifact.file.path} changed after {who} wrote it ({recorded} bytes then, "
            f"{artifact.file.size} now): its values are not that run's evidence "
            "(artifact_changed_after_run); let each run write its own file, see INSTRUCTIONS.md"
        )
    return warnings


def with_evidence_map(
    record: LogbookRecord, root: Path, *, checks_file: str = CHECKS_FILE
) -> LogbookRecord:
    """``record`` with the evidence map found at ``root`` (kept as a file too, so the stored
    logbook holds what the participant wrote), and with the proposed checks ``checks_file``
    kept as a file (read once stored, :mod:`openrepro.intake`); a malformed map refuses the
    submission with a :class:`LogbookError` naming the problem (see
    :func:`~openrepro.logbooks.manifest.read_evidence_map`)."""
    proposals = root / checks_file
    if proposals.is_file() and not proposals.is_symlink():
        ref = file_ref(root, checks_file, checks_file)
        files = sorted({f.path: f for f in [*record.files, ref]}.values(), key=lambda f: f.path)
        record = record.model_copy(update={"files": files})
    found = read_evidence_map(root)
    if found is None:
        return record
    ref = file_ref(root, EVIDENCE_MAP_FILE, EVIDENCE_MAP_FILE)
    files = sorted({f.path: f for f in [*record.files, ref]}.values(), key=lambda f: f.path)
    return record.model_copy(update={"evidence_map": found, "files": files})


def _refs(record: LogbookRecord) -> list[PaperRef]:
    if record.paper_refs:
        return record.paper_refs
    if record.paper_id:  # a record read before paper references were kept
        return [PaperRef(kind="venue_id", value=record.paper_id, source="paper")]
    return []


def relinked(record: LogbookRecord, venue_id: str) -> LogbookRecord:
    """``record`` for paper ``venue_id``: its claim ids, written with whatever id the logbook
    used for its paper (an arXiv id, a tag's id), are rewritten to the challenge's."""
    aliases = {r.value for r in record.paper_refs} | {record.paper_id or ""}
    claims = set(page_claims(venue_id, record.pages)) if record.format == "trackio" else set()
    for claim in record.claims:
        paper, _, key = claim.rpartition("/")
        claims.add(f"{venue_id}/{key}" if paper in aliases and key else claim)
    return record.model_copy(update={"paper_id": venue_id, "claims": sorted(claims)})


def store_logbook(session: Session, ctx: ChallengeContext, staged: StagedLogbook) -> SubmitReport:
    """Write the staged record in the caller's transaction (``session``, not committed here),
    linked to the paper the caller named or the one the record names; its staged files are
    moved into the store once every check has passed, before the caller commits (a blob that
    no record names is harmless: content-addressed, never served on its own)."""
    record, handle, stored = staged.record, staged.participant, staged.stored
    explicit = staged.paper
    warnings: list[str] = list(record.warnings) + changed_file_warnings(record)
    check_not_frozen(session, ctx.challenge_id)
    paper, decided = link_paper(session, ctx.challenge_id, _refs(record), explicit=explicit)
    record = relinked(record, paper.venue_id)
    revision = record.revision()
    known = {
        f"{paper.venue_id}/{key}"
        for key in session.scalars(
            select(Claim.key).where(Claim.paper_id == paper.id, Claim.status == "active")
        )
    }
    unknown = [c for c in record.claims if c not in known]
    if unknown:
        warnings.append(f"claims not in this challenge: {', '.join(unknown)}")
    person = session.scalar(
        select(Participant).where(
            Participant.challenge_id == ctx.challenge_id, Participant.handle == handle
        )
    )
    if person is None:
        person = Participant(challenge_id=ctx.challenge_id, handle=handle)
        session.add(person)
        session.flush()
    existing = session.scalars(
        select(Logbook).where(Logbook.paper_id == paper.id, Logbook.participant_id == person.id)
    ).all()
    same = next((b for b in existing if b.revision == revision), None)
    if same is not None:
        status: Literal["new", "new-revision", "unchanged"] = "unchanged"
        book = same
    else:
        status = "new-revision" if existing else "new"
        _check_participant_bytes(ctx, session, person, stored)
        book = Logbook(
            paper_id=paper.id, participant_id=person.id, revision=revision,
            title=record.title, source_url=record.source, format=record.format,
            manifest=record.model_dump(mode="json"), stored_bytes=stored,
        )  # fmt: skip
        session.add(book)
        session.flush()
    _place(staged.staging, staged.files_dir)
    evidence, testimony = _summary(record)
    return SubmitReport(
        status=status, logbook_id=book.id, paper_id=paper.venue_id, participant=handle,
        revision=revision, format=record.format, claims=record.claims,
        files=len(record.files), bytes=sum(f.size for f in record.files),
        evidence=evidence, testimony=testimony, warnings=warnings,
        linked_by=f"{decided.kind} {decided.value!r} ({decided.source})",
        side_files=[s.model_dump(mode="json") for s in record.side_files],
    )  # fmt: skip
