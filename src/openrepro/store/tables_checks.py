"""Tables of the checks domain (created by their own Alembic migration, 0012).

* :class:`CheckProposal`: a check a participant (its coding agent) proposed for a claim, from
  the ``checks.json`` of a submitted logbook or ``openrepro check propose``; validated and
  grounded before it is stored. It is used for that participant's own logbooks only where the
  claim has no organizer's check, and counts only once **confirmed** (accepted by an organizer,
  or proposed in an equivalent form by a participant of another confirmed team); a confirmed
  proposal becomes the claim's check (kept in the claim's edit history).
* :class:`CheckDraft` (migration 0016): a check a drafter (a model behind an endpoint, or the
  rules) drafted for a claim in bulk (``claims check draft --all``), with the model's name,
  family and prompt version, its tokens and seconds; or why it drafted none. A draft never
  counts on its own: it is **confirmed** when an independent drafter (a participant of a
  confirmed team, a model of another family) drafts an equivalent check.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from openrepro.store.models import Base, _in, utcnow

__all__ = ["DRAFT_STATUSES", "PROPOSAL_STATUSES", "CheckDraft", "CheckProposal"]

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


#: drafted: a check, waiting for an independent drafter; confirmed: an independent drafter
#: agreed (see ``confirmed_by``); none: the drafter drafted no check (``reason`` says why)
DRAFT_STATUSES = ("drafted", "confirmed", "none")


class CheckDraft(Base):
    """One drafter's check for one claim (see the module docstring); one row per claim,
    drafter and prompt version, so an interrupted bulk run resumes where it stopped."""

    __tablename__ = "check_drafts"
    __table_args__ = (
        UniqueConstraint("claim_id", "drafter", "prompt_version", name="uq_check_drafts_drafter"),
        CheckConstraint(_in("status", DRAFT_STATUSES), name="status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), index=True)
    #: "model:<model name>" or "rules"
    drafter: Mapped[str] = mapped_column(String(200))
    #: the model's family ("qwen", "llama", ...): two drafts confirm each other only across
    #: families
    family: Mapped[str] = mapped_column(String(60), default="")
    prompt_version: Mapped[str] = mapped_column(String(60), default="")
    check: Mapped[dict[str, Any] | None] = mapped_column(nullable=True, default=None)
    reason: Mapped[str] = mapped_column(String(500), default="")
    #: digest of the check's equivalence form (openrepro.claims.proposals.equivalence_form)
    form: Mapped[str] = mapped_column(String(64), default="")
    status: Mapped[str] = mapped_column(String(20), default="drafted")
    #: who agreed: "proposal:<id> (<handle>, team <team>)", "draft:<id> (<drafter>)",
    #: "organizer:<handle>"
    confirmed_by: Mapped[str] = mapped_column(String(300), default="")
    confirmed_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, default=None
    )
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
