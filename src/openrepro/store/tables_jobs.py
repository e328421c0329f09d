"""Tables of the jobs domain (created by their own Alembic migration, 0004).

:class:`LedgerEntry` is the append-only credit ledger: rows are only ever inserted, never updated
or deleted, and a participant's balance is derived from them (see :mod:`openrepro.jobs.ledger`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, DateTime, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from openrepro.store.models import Base, _in, utcnow

__all__ = ["LEDGER_KINDS", "LedgerEntry"]

#: ``grant`` (+, an organizer), ``reserve`` (-, a launch), ``release`` (+, the reservation given
#: back when the job ends), ``charge`` (-, the measured cost of the job).
LEDGER_KINDS = ("grant", "reserve", "release", "charge")


class LedgerEntry(Base):
    """One movement of a participant's credit, in USD (signed: negative takes credit away)."""

    __tablename__ = "ledger_entries"
    __table_args__ = (CheckConstraint(_in("kind", LEDGER_KINDS), name="kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id", ondelete="CASCADE"))
    participant_id: Mapped[int] = mapped_column(
        ForeignKey("participants.id", ondelete="CASCADE"), index=True
    )
    job_id: Mapped[int | None] = mapped_column(
        ForeignKey("jobs.id", ondelete="SET NULL"), default=None, index=True
    )
    kind: Mapped[str] = mapped_column(String(20))
    amount_usd: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(Text, default="")
    actor: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
