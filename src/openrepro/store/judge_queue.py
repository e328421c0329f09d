"""The judge queue's operations (tables in :mod:`openrepro.store.tables_queue`).

Every writer of something a verdict depends on calls :func:`enqueue` in its own transaction, so
the work item exists exactly when the change does: a stored submission (``submission``), a check
set, accepted or confirmed (``check``), a review answer (``review``), a re-check decision
(``recheck``) and a new judge version (``judge-version``, a background re-judge of everything,
lowest priority). An item is stored once per key (logbook revision, claim, inputs, judge
version); enqueueing a key again changes nothing.

Workers (:mod:`openrepro.judge.worker`) call :func:`claim_next`, which takes the next logbook's
queued items under a lease: lower ``priority`` first, then round robin by participant (the one
served longest ago first), then oldest. A logbook is judged by one worker at a time. On
PostgreSQL the head is read ``FOR UPDATE SKIP LOCKED`` inside a transaction-scoped advisory lock
(claims are serialised, never the judging); on SQLite the claim transaction starts with a write,
so it holds the database's write lock from its first statement. A worker extends its lease while
it judges (:func:`extend_lease`); an item whose lease has passed (its worker was killed) returns to
the queue at the next claim. :func:`finish` marks the items done; :func:`fail` puts them back with
an exponential backoff, or marks them ``failed`` with the reason after the last attempt.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import and_, case, func, or_, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from openrepro.errors import QueueFullError
from openrepro.store.models import Claim, Logbook, Paper, utcnow
from openrepro.store.tables_queue import JudgeQueueItem, JudgeQueueState, JudgeQueueTurn

__all__ = [
    "PRIORITIES",
    "Claimed",
    "QueueFailure",
    "QueueStats",
    "awaiting_rejudging",
    "check_capacity",
    "claim_next",
    "claim_states",
    "enqueue",
    "extend_lease",
    "fail",
    "finish",
    "inputs_digest",
    "judge_version",
    "queue_position",
    "queue_stats",
    "register_judge_version",
]

#: the priority of each reason an item is made for (lower is claimed first)
PRIORITIES = {"submission": 0, "check": 1, "review": 1, "recheck": 1, "judge-version": 9}
_LOCK_KEY = 0x6A7564676551  # the PostgreSQL advisory lock that serialises claims
_BATCH = 2000
_VERSION = "judge_version"


class Claimed(BaseModel):
    """The items of one logbook a worker took under a lease."""

    logbook_id: int
    participant_id: int
    item_ids: list[int]
    claim_ids: list[int]
    attempts: int


class QueueFailure(BaseModel):
    logbook_id: int
    claim: str
    attempts: int
    error: str
    at: datetime | None = None


class QueueStats(BaseModel):
    """What organizers see of the queue (``openrepro status --queue``, the stats page)."""

    queued: int = 0
    judging: int = 0
    done: int = 0
    failed: int = 0
    oldest_queued_at: datetime | None = None
    #: items finished in the last ``window_minutes``, per minute
    per_minute: float = 0.0
    window_minutes: int = 10
    judge_version: str = ""
    failures: list[QueueFailure] = Field(default_factory=list)


def _now() -> datetime:
    return utcnow()


def inputs_digest(check: dict[str, Any] | None) -> str:
    """The ``inputs`` part of an item's key: a digest of the claim's stored check record."""
    if not check:
        return "no-check"
    return hashlib.sha256(json.dumps(check, sort_keys=True).encode()).hexdigest()[:32]


def judge_version(session: Session) -> str:
    """The judge version the workers run ("" before a worker first started)."""
    found = session.get(JudgeQueueState, _VERSION)
    return found.value if found is not None else ""


def register_judge_version(session: Session, version: str) -> bool:
    """Record the judge version a starting worker runs; True when it differs from the last
    one recorded (everything is then to be judged again)."""
    row = session.get(JudgeQueueState, _VERSION)
    if row is None:
        session.add(JudgeQueueState(name=_VERSION, value=version))
        session.flush()
        return True
    if row.value == version:
        return False
    row.value = version
    session.flush()
    return True


def _insert(session: Session) -> Any:
    module = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    return module.insert(JudgeQueueItem)


def enqueue(
    session: Session,
    logbook_ids: Iterable[int],
    *,
    reason: str,
    claim_ids: Iterable[int] | None = None,
    suffix: str = "",
) -> int:
    """Queue the active claims (all, or ``claim_ids``) of the given logbook revisions for
    judging; ``suffix`` marks an input that is not the check (``review:<id>``). A submission
    replaces the queued items of the participant's older revisions of that paper. Returns the
    number of keys offered (a key already queued or judged is left as it is)."""
    books = sorted(set(logbook_ids))
    wanted = None if claim_ids is None else sorted(set(claim_ids))
    if not books or wanted == []:
        return 0
    version = judge_version(session)
    priority = PRIORITIES[reason]
    now = _now()
    offered = 0
    for start in range(0, len(books), _BATCH):
        batch = books[start : start + _BATCH]
        query = (
            select(Logbook.id, Logbook.participant_id, Logbook.paper_id, Claim.id, Claim.check)
            .join(Claim, (Claim.paper_id == Logbook.paper_id) & (Claim.status == "active"))
            .where(Logbook.id.in_(batch))
        )
        if wanted is not None:
            query = query.where(Claim.id.in_(wanted))
        rows = session.execute(query).all()
        if reason == "submission":
            for book, person, paper in {(r[0], r[1], r[2]) for r in rows}:
                session.execute(
                    update(JudgeQueueItem)
                    .where(JudgeQueueItem.status == "queued",
                           JudgeQueueItem.participant_id == person,
                           JudgeQueueItem.paper_id == paper, JudgeQueueItem.logbook_id < book)
                    .values(status="replaced", finished_at=now)
                )  # fmt: skip
        values = [
            {"logbook_id": book, "claim_id": claim, "participant_id": person, "paper_id": paper,
             "inputs": inputs_digest(check) + (f"+{suffix}" if suffix else ""),
             "judge_version": version, "priority": priority, "reason": reason,
             "status": "queued", "attempts": 0, "error": "", "worker": "", "created_at": now,
             "available_at": now}
            for book, person, paper, claim, check in rows
        ]  # fmt: skip
        for chunk in range(0, len(values), 500):
            statement = _insert(session).on_conflict_do_nothing(
                index_elements=["logbook_id", "claim_id", "inputs", "judge_version"]
            )
            session.execute(statement, values[chunk : chunk + 500])
        offered += len(values)
    session.flush()
    return offered


def check_capacity(session: Session, participant_id: int | None, cap: int) -> None:
    """QueueFullError (HTTP 429) when the participant already has ``cap`` items queued."""
    if participant_id is None:
        return
    waiting = session.scalar(
        select(func.count(JudgeQueueItem.id)).where(
            JudgeQueueItem.participant_id == participant_id, JudgeQueueItem.status == "queued"
        )
    )
    if (waiting or 0) >= cap:
        raise QueueFullError(
            f"{waiting:,} of your claims are already waiting in the judge queue (the limit is "
            f"{cap:,} per participant): submit again once they are judged "
            "(`openrepro status --wait`)"
        )


def claim_next(session: Session, worker: str, lease_s: float) -> Claimed | None:
    """Take the next logbook's queued items for ``worker`` (see the module docstring)."""
    now = _now()
    item = JudgeQueueItem
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
    # the first statement writes: on SQLite the transaction holds the write lock from here on
    session.execute(
        update(item)
        .where(item.status == "judging", item.lease_until < now)
        .values(status="queued", worker="", lease_until=None)
    )
    busy = select(item.logbook_id).where(item.status == "judging")
    head = (
        select(item.id, item.logbook_id, item.participant_id)
        .outerjoin(JudgeQueueTurn, JudgeQueueTurn.participant_id == item.participant_id)
        .where(item.status == "queued", item.available_at <= now, item.logbook_id.not_in(busy))
        .order_by(item.priority, func.coalesce(JudgeQueueTurn.turn, 0), item.id)
        .limit(1)
    )
    if session.get_bind().dialect.name == "postgresql":
        head = head.with_for_update(skip_locked=True, of=item)
    found = session.execute(head).first()
    if found is None:
        return None
    _, book, person = found
    rows = session.execute(
        select(item.id, item.claim_id, item.attempts).where(
            item.logbook_id == book, item.status == "queued", item.available_at <= now
        )
    ).all()
    ids = [r[0] for r in rows]
    session.execute(
        update(item)
        .where(item.id.in_(ids), item.status == "queued")
        .values(status="judging", worker=worker, claimed_at=now,
                lease_until=now + timedelta(seconds=lease_s), attempts=item.attempts + 1)
    )  # fmt: skip
    turn = (session.scalar(select(func.max(JudgeQueueTurn.turn))) or 0) + 1
    row = session.get(JudgeQueueTurn, person)
    if row is None:
        session.add(JudgeQueueTurn(participant_id=person, turn=turn))
    else:
        row.turn = turn
    session.flush()
    return Claimed(logbook_id=book, participant_id=person, item_ids=ids,
                   claim_ids=sorted({r[1] for r in rows}),
                   attempts=max(r[2] for r in rows) + 1)  # fmt: skip


def extend_lease(session: Session, item_ids: Sequence[int], worker: str, lease_s: float) -> int:
    """Push the lease of ``worker``'s claimed items on; the number still held."""
    result = session.execute(
        update(JudgeQueueItem)
        .where(JudgeQueueItem.id.in_(list(item_ids)), JudgeQueueItem.worker == worker,
               JudgeQueueItem.status == "judging")
        .values(lease_until=_now() + timedelta(seconds=lease_s))
    )  # fmt: skip
    return int(getattr(result, "rowcount", 0) or 0)


def finish(session: Session, item_ids: Sequence[int], worker: str) -> None:
    """Mark ``worker``'s claimed items judged."""
    session.execute(
        update(JudgeQueueItem)
        .where(JudgeQueueItem.id.in_(list(item_ids)), JudgeQueueItem.worker == worker,
               JudgeQueueItem.status == "judging")
        .values(status="done", finished_at=_now(), lease_until=None, error="")
    )  # fmt: skip


def fail(
    session: Session,
    item_ids: Sequence[int],
    worker: str,
    error: str,
    *,
    max_attempts: int,
    backoff_s: float,
) -> None:
    """Put ``worker``'s claimed items back after a failure, each after ``backoff_s`` doubled per
    attempt so far; an item that has had ``max_attempts`` is marked ``failed`` with ``error``."""
    now = _now()
    for row in session.scalars(
        select(JudgeQueueItem).where(JudgeQueueItem.id.in_(list(item_ids)),
                                     JudgeQueueItem.worker == worker,
                                     JudgeQueueItem.status == "judging")
    ):  # fmt: skip
        row.error, row.lease_until = error[:2000], None
        if row.attempts >= max_attempts:
            row.status, row.finished_at = "failed", now
        else:
            row.status = "queued"
            row.available_at = now + timedelta(seconds=backoff_s * 2 ** (row.attempts - 1))
    session.flush()


def claim_states(
    session: Session, logbook_ids: Sequence[int]
) -> dict[tuple[int, int], tuple[str, str]]:
    """(logbook id, claim id) -> (the state of its newest item: queued, judging, done, failed;
    the failure's reason) for the given logbooks."""
    out: dict[tuple[int, int], tuple[str, str]] = {}
    books = sorted(set(logbook_ids))
    for start in range(0, len(books), _BATCH):
        rows = session.execute(
            select(JudgeQueueItem.logbook_id, JudgeQueueItem.claim_id, JudgeQueueItem.status,
                   JudgeQueueItem.error)
            .where(JudgeQueueItem.logbook_id.in_(books[start : start + _BATCH]),
                   JudgeQueueItem.status != "replaced")
            .order_by(JudgeQueueItem.id)
        ).all()  # fmt: skip
        for book, claim, status, error in rows:
            old = out.get((book, claim))
            if old is not None and old[0] in ("queued", "judging") and status == "done":
                continue  # an open item says more than an older finished one
            out[(book, claim)] = (status, error)
    return out


def queue_position(session: Session, logbook_id: int) -> int | None:
    """How many logbooks are queued ahead of this one's first queued item, plus one (round
    robin may take it sooner); None when nothing of it is waiting."""
    mine = session.execute(
        select(func.min(JudgeQueueItem.priority), func.min(JudgeQueueItem.id)).where(
            JudgeQueueItem.logbook_id == logbook_id,
            JudgeQueueItem.status.in_(("queued", "judging")),
        )
    ).first()
    if mine is None or mine[1] is None:
        return None
    priority, first = mine
    ahead = session.scalar(
        select(func.count(func.distinct(JudgeQueueItem.logbook_id))).where(
            JudgeQueueItem.status.in_(("queued", "judging")),
            JudgeQueueItem.logbook_id != logbook_id,
            or_(JudgeQueueItem.priority < priority,
                and_(JudgeQueueItem.priority == priority, JudgeQueueItem.id < first)),
        )
    )  # fmt: skip
    return int(ahead or 0) + 1


def awaiting_rejudging(session: Session, claim_ids: Iterable[int]) -> set[int]:
    """Of ``claim_ids``, those whose check changed and that have an item still to judge."""
    wanted = sorted(set(claim_ids))
    if not wanted:
        return set()
    return set(
        session.scalars(
            select(JudgeQueueItem.claim_id).distinct().where(
                JudgeQueueItem.claim_id.in_(wanted), JudgeQueueItem.reason == "check",
                JudgeQueueItem.status.in_(("queued", "judging")),
            )
        )
    )  # fmt: skip


def queue_stats(session: Session, challenge_id: int, window_minutes: int = 10) -> QueueStats:
    """Depth, oldest queued item, throughput over the last ``window_minutes`` and failures."""
    item = JudgeQueueItem
    since = _now() - timedelta(minutes=window_minutes)
    mine = select(Paper.id).where(Paper.challenge_id == challenge_id)
    counts = session.execute(
        select(
            func.sum(case((item.status == "queued", 1), else_=0)),
            func.sum(case((item.status == "judging", 1), else_=0)),
            func.sum(case((item.status == "done", 1), else_=0)),
            func.sum(case((item.status == "failed", 1), else_=0)),
            func.min(case((item.status == "queued", item.created_at), else_=None)),
            func.sum(case((and_(item.status == "done", item.finished_at >= since), 1), else_=0)),
        ).where(item.paper_id.in_(mine))
    ).one()
    out = QueueStats(
        queued=int(counts[0] or 0), judging=int(counts[1] or 0), done=int(counts[2] or 0),
        failed=int(counts[3] or 0), oldest_queued_at=counts[4],
        per_minute=round(int(counts[5] or 0) / window_minutes, 2),
        window_minutes=window_minutes, judge_version=judge_version(session),
    )  # fmt: skip
    if isinstance(out.oldest_queued_at, str):  # SQLite's MIN over a CASE loses the type
        out.oldest_queued_at = datetime.fromisoformat(out.oldest_queued_at)
    for book, venue, key, attempts, error, at in session.execute(
        select(item.logbook_id, Paper.venue_id, Claim.key, item.attempts, item.error,
               item.finished_at)
        .join(Claim, Claim.id == item.claim_id).join(Paper, Paper.id == item.paper_id)
        .where(item.status == "failed", Paper.challenge_id == challenge_id)
        .order_by(item.id.desc()).limit(20)
    ):  # fmt: skip
        out.failures.append(QueueFailure(logbook_id=book, claim=f"{venue}/{key}",
                                         attempts=attempts, error=error, at=at))  # fmt: skip
    return out
