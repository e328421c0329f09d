"""Tables of the judge queue (created by their own Alembic migration, 0014).

* :class:`JudgeQueueItem`: one unit of judging work, keyed by (logbook revision, claim, inputs
  digest, judge version) and stored once per key. ``inputs`` is the digest of the claim's stored
  check record when the item was made, with a suffix naming a later input that changes a
  verdict without changing the check (a review answer, a re-check decision). Its ``status`` runs
  ``queued`` -> ``judging`` (claimed by a worker under a lease) -> ``done``; a failure goes back to
  ``queued`` with a backoff, and after the last attempt to ``failed`` with its reason;
  ``replaced`` marks items of a logbook revision superseded before they were judged.
* :class:`JudgeQueueTurn`: when each participant was last served, for round robin.
* :class:`JudgeQueueState`: named values of the queue (the judge version the workers run).

The functions over them live in :mod:`openrepro.store.judge_queue`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from openrepro.store.models import Base, _in, utcnow

__all__ = ["QUEUE_STATUSES", "JudgeQueueItem", "JudgeQueueState", "JudgeQueueTurn"]

QUEUE_STATUSES = ("queued", "judging", "done", "failed", "replaced")


class JudgeQueueItem(Base):
    """One (logbook revision, claim, inputs, judge version) to judge (see the module docstring)."""

    __tablename__ = "judge_queue"
    __table_args__ = (
        UniqueConstraint(
            "logbook_id", "claim_id", "inputs", "judge_version", name="uq_judge_queue_key"
        ),
        CheckConstraint(_in("status", QUEUE_STATUSES), name="status"),
        Index("ix_judge_queue_claimable", "status", "priority", "available_at"),
        Index("ix_judge_queue_logbook", "logbook_id", "status"),
        Index("ix_judge_queue_participant", "participant_id", "status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    logbook_id: Mapped[int] = mapped_column(ForeignKey("logbooks.id", ondelete="CASCADE"))
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), index=True)
    participant_id: Mapped[int] = mapped_column(ForeignKey("participants.id", ondelete="CASCADE"))
    paper_id: Mapped[int] = mapped_column(ForeignKey("papers.id", ondelete="CASCADE"))
    inputs: Mapped[str] = mapped_column(String(100))
    judge_version: Mapped[str] = mapped_column(String(100))
    #: 0 a submission, 1 a check or an answer changed, 9 a background re-judge (lower first)
    priority: Mapped[int] = mapped_column(Integer, default=0)
    #: what made it: submission, check, review, recheck, judge-version
    reason: Mapped[str] = mapped_column(String(30))
    status: Mapped[str] = mapped_column(String(20), default="queued")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str] = mapped_column(Text, default="")
    worker: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: not claimed before this time (a retry's backoff)
    available_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    claimed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    #: a claimed item whose lease has passed goes back to the queue (its worker died)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class JudgeQueueTurn(Base):
    """The turn counter at which a participant's item was last claimed (round robin)."""

    __tablename__ = "judge_queue_turns"

    participant_id: Mapped[int] = mapped_column(
        ForeignKey("participants.id", ondelete="CASCADE"), primary_key=True
    )
    turn: Mapped[int] = mapped_column(Integer, default=0)


class JudgeQueueState(Base):
    """A named value of the queue: ``judge_version`` (what the workers judge with)."""

    __tablename__ = "judge_queue_state"

    name: Mapped[str] = mapped_column(String(50), primary_key=True)
    value: Mapped[str] = mapped_column(String(300), default="")
