"""Tables of the checks domain (created by their own Alembic migration, 0012).

* :class:`CheckProposal`: a check a participant (its coding agent) proposed for a claim, from
  the ``checks.json`` of a submitted logbook or ``openrepro check propose``; validated and
  grounded before it is stored. It is used for that participant's own logbooks only where the
  claim has no organizer's check, and counts only once **confirmed** (accepted by an organizer,
  or proposed in an equivalent form by a participant of another confirmed team); a confirmed
  proposal becomes the claim's check (kept in the claim's edit history).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, DateTime, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from openrepro.store.models import Base, _in, utcnow

__all__ = ["PROPOSAL_STATUSES", "CheckProposal"]

#: proposed: stored, waiting; confirmed: accepted or matched by another team (the claim's check);
#: superseded: the same participant proposed another check for the claim since
PROPOSAL_STATUSES = ("proposed", "confirmed", "superseded")


class CheckProposal(Base):
    """A participant's proposed check for one claim (see the module docstring)."""

    __tablename__ = "check_proposals"
    __table_args__ = (
        UniqueConstraint("claim_id", "participant_id", "form", name="uq_check_proposals_form"),
        CheckConstraint(_in("status", PROPOSAL_STATUSES), name="status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), index=True)
    participant_id: Mapped[int] = mapped_column(
        ForeignKey("participants.id", ondelete="CASCADE"), index=True
    )
    #: the logbook whose checks.json carried it (None: proposed from the command line)
    logbook_id: Mapped[int | None] = mapped_column(
        ForeignKey("logbooks.id", ondelete="SET NULL"), nullable=True, default=None
    )
    check: Mapped[dict[str, Any]] = mapped_column()
    #: digest of the check's equivalence form (relation, comparator, constants, quantity roles)
    form: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(20), default="proposed")
    #: how it was confirmed: "organizer:<handle>" or "equivalent:<proposal id>"
    confirmed_by: Mapped[str] = mapped_column(String(300), default="")
    confirmed_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, default=None
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
