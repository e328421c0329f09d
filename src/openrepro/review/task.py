"""Human review tasks: image pairs, a question, answer options; a per-reviewer schedule; an
append-only answer CSV that survives a killed server.

A task is a folder::

    task.json      the task: name, question, options, seed, share of repeated items
    items.csv      item,a,b: one row per pair (absolute paths of the A and B images)
    answers.csv    slot,item,shown_order,answer,shown_answer,reviewer,time,repeat,seconds

An item is a pair (``a``, ``b``) or a single output (``b`` empty: one image shown, for a
``usable``/``not usable`` question). A task made from a stored logbook
(:mod:`openrepro.review.stored`) also records its ``stored_id``: its answers then go to the
store first (one transaction each), and to answers.csv as a copy.

**Time per item** (``seconds``): measured by the server, from sending the page that shows the
slot to receiving its answer (monotonic clock; empty when the server restarted in between).

**Schedule.** Each reviewer gets every item once in a shuffled order, then a share
(``repeat_share``) of the items again (for self-agreement); the sides of each slot are drawn
at random (``shown_order`` ``AB``: A on the left). All of it is seeded by the task's seed and the
reviewer's name, so a restarted server shows the same schedule, and recorded in the answers.

**Blinding.** The page never shows a file name or which side is A: images are served under
opaque ids, and an answer ``left``/``right`` is turned into ``A``/``B`` by the server.

**Durability.** Each answer is one CSV line written with ``flush`` + ``fsync`` before the page
moves on; a slot already answered is never written again (so a resubmitted form or a restarted
server does not duplicate it), and a line cut short by a kill is dropped when the log reopens.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import random
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from openrepro.errors import ConfigError, NotFoundError

__all__ = [
    "ANSWER_FIELDS",
    "IMAGE_SUFFIXES",
    "Answer",
    "AnswerLog",
    "ReviewItem",
    "ReviewOption",
    "ReviewTask",
    "Slot",
    "create_task",
    "create_task_from_items",
    "load_task",
    "schedule",
]

TASK_FILE = "task.json"
ITEMS_FILE = "items.csv"
ANSWERS_FILE = "answers.csv"
ANSWER_FIELDS = (
    "slot", "item", "shown_order", "answer", "shown_answer", "reviewer", "time", "repeat",
    "seconds",
)  # fmt: skip
#: the fields every answer line has (files written before ``seconds`` existed lack it)
_REQUIRED_FIELDS = ANSWER_FIELDS[:-1]
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
SIDES = ("left", "right")


class ReviewOption(BaseModel):
    label: str  # "left" / "right" refer to the sides shown; anything else is kept as is
    key: str  # the keyboard shortcut


class ReviewItem(BaseModel):
    id: str  # the shared file name
    a: str
    b: str = ""  # "" for a single output


class ReviewTask(BaseModel):
    name: str
    question: str
    options: list[ReviewOption]
    seed: int = 0
    repeat_share: float = Field(default=0.1, ge=0, le=1)
    created_at: str = ""
    stored_id: int | None = None  # the task's row in the store (answers stored there too)
    items: list[ReviewItem] = Field(default_factory=list, exclude=True)
    folder: Path = Field(default=Path("."), exclude=True)

    @property
    def answers_path(self) -> Path:
        return self.folder / ANSWERS_FILE


class Slot(BaseModel):
    slot: int
    item: str
    order: Literal["AB", "BA"]
    repeat: bool = False


class Answer(BaseModel):
    slot: int
    item: str
    shown_order: str
    answer: str  # unblinded: "A" / "B" for a side, else the option's label
    shown_answer: str  # what the reviewer pressed: "left", "right", ...
    reviewer: str
    time: str
    repeat: bool = False
    seconds: float | None = None  # page sent -> answer received, by the server's clock


def _options(labels: list[str]) -> list[ReviewOption]:
    if len(labels) < 2 or len(set(labels)) != len(labels) or len(labels) > 9:
        raise ConfigError("a task needs 2 to 9 distinct answer options")
    firsts = [label[:1].lower() for label in labels]
    out = []
    for n, label in enumerate(labels, 1):
        out.append(ReviewOption(label=label, key=str(n)))
        if firsts.count(label[:1].lower()) == 1 and not label[:1].isdigit():
            out.append(ReviewOption(label=label, key=label[:1].lower()))
    return out


def create_task(
    folder: Path,
    a_dir: Path,
    b_dir: Path,
    *,
    question: str,
    options: list[str] | None = None,
    name: str = "",
    seed: int = 0,
    repeat_share: float = 0.1,
) -> ReviewTask:
    """A task from the images of ``a_dir`` and ``b_dir`` with the same file name."""
    if (folder / TASK_FILE).exists():
        raise ConfigError(f"{folder / TASK_FILE} exists; refusing to overwrite a task")
    for side in (a_dir, b_dir):
        if not side.is_dir():
            raise NotFoundError(f"{side} is not a folder")

    def images(d: Path) -> dict[str, Path]:
        return {p.name: p.resolve() for p in d.iterdir()
                if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES}  # fmt: skip

    a_files, b_files = images(a_dir), images(b_dir)
    shared = sorted(set(a_files) & set(b_files))
    if not shared:
        raise ConfigError(f"no image file name is in both {a_dir} and {b_dir}")
    items = [ReviewItem(id=n, a=str(a_files[n]), b=str(b_files[n])) for n in shared]
    return create_task_from_items(folder, items, question=question, options=options, name=name,
                                  seed=seed, repeat_share=repeat_share)  # fmt: skip


def create_task_from_items(
    folder: Path,
    items: list[ReviewItem],
    *,
    question: str,
    options: list[str] | None = None,
    name: str = "",
    seed: int = 0,
    repeat_share: float = 0.1,
    stored_id: int | None = None,
) -> ReviewTask:
    """A task of the given items (pairs, or single outputs with ``b`` empty)."""
    if (folder / TASK_FILE).exists():
        raise ConfigError(f"{folder / TASK_FILE} exists; refusing to overwrite a task")
    if not items:
        raise ConfigError("a review task needs at least one item")
    task = ReviewTask(
        name=name or folder.name, question=question,
        options=_options(options or ["left", "right", "same"]), seed=seed,
        repeat_share=repeat_share, created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        stored_id=stored_id, items=items, folder=folder,
    )  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    (folder / TASK_FILE).write_text(task.model_dump_json(indent=2) + "\n", encoding="utf-8")
    with (folder / ITEMS_FILE).open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "a", "b"])
        writer.writerows([i.id, i.a, i.b] for i in task.items)
    return task


def load_task(folder: Path) -> ReviewTask:
    path = folder / TASK_FILE
    if not path.is_file():
        raise NotFoundError(f"{folder} holds no review task ({TASK_FILE})")
    task = ReviewTask.model_validate_json(path.read_text(encoding="utf-8"))
    with (folder / ITEMS_FILE).open(encoding="utf-8", newline="") as handle:
        task.items = [ReviewItem(id=r["item"], a=r["a"], b=r["b"]) for r in csv.DictReader(handle)]
    task.folder = folder
    return task


def _rng(task: ReviewTask, reviewer: str, purpose: str) -> random.Random:
    digest = hashlib.sha256(f"{task.seed}\0{reviewer}\0{purpose}".encode()).hexdigest()
    return random.Random(int(digest[:16], 16))


def schedule(task: ReviewTask, reviewer: str) -> list[Slot]:
    """The reviewer's slots: every item once (shuffled), then the repeated share (shuffled)."""
    ids = [item.id for item in task.items]
    order = _rng(task, reviewer, "order")
    first = ids[:]
    order.shuffle(first)
    repeats = order.sample(ids, round(task.repeat_share * len(ids)))
    sides = _rng(task, reviewer, "sides")
    slots: list[Slot] = []
    for n, item in enumerate([*first, *repeats]):
        shown: Literal["AB", "BA"] = "AB" if sides.random() < 0.5 else "BA"
        slots.append(Slot(slot=n, item=item, order=shown, repeat=n >= len(first)))
    return slots


def unblind(label: str, order: str) -> str:
    """``left``/``right`` as the side's source (``A``/``B``) for the order shown."""
    if label in SIDES:
        return order[SIDES.index(label)]
    return label


def read_answers(path: Path) -> list[Answer]:
    """Every complete answer line of ``path`` (a line cut short by a kill is skipped)."""
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    out: list[Answer] = []
    for row in csv.DictReader(io.StringIO(text)):
        if None in row.values() or any(row.get(f) is None for f in _REQUIRED_FIELDS):
            continue
        seconds = row.get("seconds") or ""
        out.append(
            Answer(slot=int(row["slot"]), item=row["item"], shown_order=row["shown_order"],
                   answer=row["answer"], shown_answer=row["shown_answer"],
                   reviewer=row["reviewer"], time=row["time"], repeat=row["repeat"] == "1",
                   seconds=float(seconds) if seconds else None)
        )  # fmt: skip
    return out


class AnswerLog:
    """The task's answers.csv, opened for appending (one writer process at a time)."""

    def __init__(self, task: ReviewTask) -> None:
        self.path = task.answers_path
        self._lock = threading.Lock()
        self._repair()
        self.answers = read_answers(self.path)

    def _repair(self) -> None:
        """Drop a last line cut short by a kill, and write the header of a new file."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            self._append(",".join(ANSWER_FIELDS) + "\n")
            return
        data = self.path.read_bytes()
        if not data.endswith(b"\n"):
            with self.path.open("r+b") as handle:
                handle.truncate(data.rfind(b"\n") + 1)
                handle.flush()
                os.fsync(handle.fileno())

    def _append(self, line: str) -> None:
        with self.path.open("a", encoding="utf-8", newline="") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())

    def answered(self, reviewer: str) -> set[int]:
        return {a.slot for a in self.answers if a.reviewer == reviewer}

    def record(
        self, slot: Slot, reviewer: str, shown_answer: str, seconds: float | None = None
    ) -> Answer | None:
        """Append the answer to ``slot`` unless it has one already (then None)."""
        with self._lock:
            if slot.slot in self.answered(reviewer):
                return None
            answer = Answer(
                slot=slot.slot, item=slot.item, shown_order=slot.order,
                answer=unblind(shown_answer, slot.order), shown_answer=shown_answer,
                reviewer=reviewer, time=datetime.now(UTC).isoformat(timespec="milliseconds"),
                repeat=slot.repeat, seconds=None if seconds is None else round(seconds, 3),
            )  # fmt: skip
            if not self.keep(answer):
                return None
            self.write_line(answer)
            return answer

    def keep(self, answer: Answer) -> bool:
        """Where an answer goes before answers.csv (the store, for a stored task); False when
        the answer is refused there (the slot was answered already)."""
        return True

    def write_line(self, answer: Answer) -> None:
        buffer = io.StringIO()
        values: dict[str, object] = answer.model_dump()
        values["repeat"] = "1" if answer.repeat else "0"
        values["seconds"] = "" if answer.seconds is None else answer.seconds
        csv.writer(buffer, lineterminator="\n").writerow([values[f] for f in ANSWER_FIELDS])
        self._append(buffer.getvalue())
        self.answers.append(answer)


def task_summary_json(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
