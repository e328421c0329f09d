"""The credit ledger: append-only entries, a derived balance, serialised reservations.

Rules (USD, signed entries in ``ledger_entries``):

- a participant starts with ``budget_usd`` (the config default, or the participant row's
  ``budget_usd`` when positive) and organizers ``grant`` more (positive entries);
- launching a job ``reserve``\\ s its worst case, price x timeout (a negative entry); it is refused
  with :class:`~openrepro.errors.BudgetError` when that exceeds the available credit;
- when the job ends its reservation is settled once: a ``release`` gives the reservation back and
  a ``charge`` takes the measured cost (running seconds x price), capped at the reservation;
- ``available = budget + granted - reserved - spent`` = budget + SUM(amount); it never goes below
  zero because every check-and-reserve runs under a lock on the participant: ``BEGIN IMMEDIATE``
  on SQLite (one writer at a time), ``SELECT ... FOR UPDATE`` of the participant row on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from openrepro.config import Settings
from openrepro.errors import BudgetError, NotFoundError, StoreError
from openrepro.jobs.records import Balance
from openrepro.store import Job, Participant, Store
from openrepro.store.models import utcnow
from openrepro.store.tables_jobs import LedgerEntry

__all__ = [
    "aware",
    "balance_in",
    "find_participant",
    "finish_job",
    "get_or_create_participant",
    "locked",
    "measured_cost",
    "reserve",
]

EPSILON = 1e-9


def aware(value: datetime) -> datetime:
    """SQLite hands back naive datetimes: they are UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


@contextmanager
def locked(store: Store, participant_id: int | None) -> Iterator[Session]:
    """A transaction that holds the participant's credit lock until it commits or rolls back."""
    with store.session() as session:
        if store.dialect == "sqlite":
            # The first statement of the transaction: takes SQLite's write lock now, so two
            # check-and-reserve transactions can never interleave (busy_timeout makes others wait).
            session.connection().exec_driver_sql("BEGIN IMMEDIATE")
        elif participant_id is not None:
            session.execute(
                select(Participant.id).where(Participant.id == participant_id).with_for_update()
            )
        yield session


def find_participant(session: Session, challenge_id: int, handle: str) -> Participant:
    person = session.scalar(
        select(Participant).where(
            Participant.challenge_id == challenge_id, Participant.handle == handle
        )
    )
    if person is None:
        raise NotFoundError(f"no participant {handle!r} in this challenge")
    return person


def get_or_create_participant(store: Store, challenge_id: int, handle: str) -> int:
    """The participant's id; a new handle gets a participant row (as ``submit`` does)."""
    handle = handle.strip()
    if not handle:
        raise NotFoundError("no participant given: pass --as HANDLE or set jobs_participant")
    for _attempt in range(2):
        try:
            with store.session() as session:
                found = session.scalar(
                    select(Participant.id).where(
                        Participant.challenge_id == challenge_id, Participant.handle == handle
                    )
                )
                if found is not None:
                    return found
                person = Participant(challenge_id=challenge_id, handle=handle)
                session.add(person)
                session.flush()
                return person.id
        except StoreError:  # created concurrently: read it back
            continue
    raise StoreError(f"cannot create participant {handle!r}")


def balance_in(session: Session, settings: Settings, person: Participant) -> Balance:
    """The participant's balance, summed from the ledger inside ``session``."""
    rows = session.execute(
        select(LedgerEntry.kind, func.coalesce(func.sum(LedgerEntry.amount_usd), 0.0))
        .where(LedgerEntry.participant_id == person.id)
        .group_by(LedgerEntry.kind)
    ).all()
    sums = {kind: float(total) for kind, total in rows}
    budget = person.budget_usd if person.budget_usd > 0 else settings.budget_usd
    granted = sums.get("grant", 0.0)
    reserved = -(sums.get("reserve", 0.0) + sums.get("release", 0.0))
    spent = -sums.get("charge", 0.0)
    return Balance(
        participant=person.handle,
        budget_usd=round(budget, 6),
        granted_usd=round(granted, 6),
        reserved_usd=round(reserved, 6) + 0.0,
        spent_usd=round(spent, 6) + 0.0,
        available_usd=round(budget + granted - reserved - spent, 6) + 0.0,
    )


def reserve(
    session: Session, settings: Settings, person: Participant, job: Job, what: str
) -> Balance:
    """Hold ``job.reserved_usd`` of the participant's credit (``session`` must be :func:`locked`).

    Adds the job row and its ``reserve`` entry, or raises :class:`BudgetError` naming the numbers.
    """
    before = balance_in(session, settings, person)
    if job.reserved_usd > before.available_usd + EPSILON:
        raise BudgetError(
            f"{what} needs ${job.reserved_usd:.4f} reserved (${job.price_per_hour_usd:g}/h x "
            f"{job.timeout_s:g} s timeout) but {person.handle} has ${before.available_usd:.4f} "
            f"available (budget ${before.budget_usd:.2f} + granted ${before.granted_usd:.2f} - "
            f"reserved ${before.reserved_usd:.4f} - spent ${before.spent_usd:.4f}); use a "
            "shorter --timeout, a cheaper --flavor, or ask an organizer for a grant"
        )
    session.add(job)
    session.flush()
    session.add(
        LedgerEntry(
            challenge_id=job.challenge_id,
            participant_id=person.id,
            job_id=job.id,
            kind="reserve",
            amount_usd=-job.reserved_usd,
            reason=f"reserve for job {job.backend}:{job.id}",
            actor=person.handle,
        )
    )
    return before


def measured_cost(job: Job, running_s: float) -> float:
    """Running seconds x the job's price, capped at its reservation."""
    cost = max(0.0, running_s) * job.price_per_hour_usd / 3600.0
    return round(min(cost, job.reserved_usd), 6)


def finish_job(
    store: Store,
    job_id: int,
    *,
    status: str,
    exit_code: int | None = None,
    error: str | None = None,
    started_at: datetime | None = None,
    finished_at: datetime | None = None,
    running_s: float | None = None,
    actor: str = "openrepro",
) -> bool:
    """Record the end of a job and settle its reservation, exactly once.

    ``running_s`` defaults to ``finished_at - started_at`` (0 when it never started). Returns
    False when the job was already settled (nothing is written then).
    """
    with store.session() as session:
        participant_id = session.scalar(select(Job.participant_id).where(Job.id == job_id))
    with locked(store, participant_id) as session:
        job = session.get(Job, job_id, with_for_update=store.dialect != "sqlite")
        if job is None:
            raise NotFoundError(f"no job {job_id}")
        session.refresh(job)
        if job.settled_at is not None:
            return False
        now = utcnow()
        job.status = status
        if exit_code is not None:
            job.exit_code = exit_code
        if error is not None:
            job.error = error
        if started_at is not None:
            job.started_at = started_at
        job.finished_at = finished_at or job.finished_at or now
        if running_s is None:
            running_s = (
                (aware(job.finished_at) - aware(job.started_at)).total_seconds()
                if job.started_at is not None
                else 0.0
            )
        cost = measured_cost(job, running_s)
        job.cost_usd = cost
        job.settled_at = now
        if job.participant_id is not None:
            name = f"{job.backend}:{job.id}"
            session.add_all(
                [
                    LedgerEntry(
                        challenge_id=job.challenge_id, participant_id=job.participant_id,
                        job_id=job.id, kind="release", amount_usd=job.reserved_usd,
                        reason=f"release reservation of job {name} ({status})", actor=actor,
                    ),
                    LedgerEntry(
                        challenge_id=job.challenge_id, participant_id=job.participant_id,
                        job_id=job.id, kind="charge", amount_usd=-cost,
                        reason=f"job {name}: {running_s:.1f} s x ${job.price_per_hour_usd:g}/h"
                        + (" (estimate)" if job.cost_is_estimate else ""),
                        actor=actor,
                    ),
                ]
            )  # fmt: skip
        return True


def grant(
    store: Store, settings: Settings, challenge_id: int, handle: str, amount: float, *,
    reason: str, actor: str,
) -> Balance:  # fmt: skip
    """Add an organizer grant (an append-only entry) and return the new balance."""
    participant_id = get_or_create_participant(store, challenge_id, handle)
    with locked(store, participant_id) as session:
        person = session.get(Participant, participant_id)
        assert person is not None
        session.add(
            LedgerEntry(
                challenge_id=challenge_id, participant_id=participant_id, kind="grant",
                amount_usd=amount, reason=reason, actor=actor,
            )
        )  # fmt: skip
        session.flush()
        return balance_in(session, settings, person)
