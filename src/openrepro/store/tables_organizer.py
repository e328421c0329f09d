"""Tables of the organizer domain (created by their own Alembic migration, 0005).

* :class:`RecheckRun`: one adversarial second pass over a queued claim, with its findings (code
  checks and, optionally, a differently-prompted LLM's objections);
* :class:`RecheckDecision`: an organizer's decision on a queued claim (the newest one counts);
  a ``rejected`` decision also writes :class:`~openrepro.store.models.VerdictEdit` rows with
  ``source="recheck"``, which outcomes apply;
* :class:`OutreachMessage`: a message to a paper's authors about a confirmed finding;
* :class:`AuthorResponse`: what the authors answered (the newest one per claim counts).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from openrepro.store.models import Base, _in, utcnow

__all__ = [
    "AUTHOR_RESPONSES",
    "OUTREACH_STATUSES",
    "RECHECK_DECISIONS",
    "AuthorResponse",
    "OutreachMessage",
    "RecheckDecision",
    "RecheckRun",
]

RECHECK_DECISIONS = ("confirmed", "rejected", "needs-more-evidence")
OUTREACH_STATUSES = ("draft", "sent")
AUTHOR_RESPONSES = ("agrees", "disputes", "fixed", "no-answer")


class RecheckRun(Base):
    """One adversarial re-check of a queued claim: findings by code and (optionally) an LLM."""

    __tablename__ = "recheck_runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id", ondelete="CASCADE"))
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), index=True)
    actor: Mapped[str] = mapped_column(String(200), default="")
    model: Mapped[str] = mapped_column(String(300), default="")
    prompt_version: Mapped[str] = mapped_column(String(50), default="")
    findings: Mapped[list[Any]] = mapped_column(default=list)
    summary: Mapped[str] = mapped_column(Text, default="")
    usage: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RecheckDecision(Base):
    """An organizer's decision on a queued claim, with the verdicts it edited."""

    __tablename__ = "recheck_decisions"
    __table_args__ = (CheckConstraint(_in("decision", RECHECK_DECISIONS), name="decision"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id", ondelete="CASCADE"))
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), index=True)
    decision: Mapped[str] = mapped_column(String(30))
    reason: Mapped[str] = mapped_column(Text)
    editor: Mapped[str] = mapped_column(String(200))
    verdict_ids: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class OutreachMessage(Base):
    """A message to a paper's authors about one confirmed finding (a claim)."""

    __tablename__ = "outreach_messages"
    __table_args__ = (CheckConstraint(_in("status", OUTREACH_STATUSES), name="status"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id", ondelete="CASCADE"))
    paper_id: Mapped[int] = mapped_column(ForeignKey("papers.id", ondelete="CASCADE"), index=True)
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), index=True)
    recipients: Mapped[list[str]] = mapped_column(default=list)
    subject: Mapped[str] = mapped_column(Text)
    body: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), default="draft")
    eml_path: Mapped[str | None] = mapped_column(Text, default=None)
    message_id: Mapped[str] = mapped_column(String(300), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class AuthorResponse(Base):
    """What a paper's authors answered about a finding (the newest one per claim counts)."""

    __tablename__ = "author_responses"
    __table_args__ = (CheckConstraint(_in("response", AUTHOR_RESPONSES), name="response"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id", ondelete="CASCADE"))
    paper_id: Mapped[int] = mapped_column(ForeignKey("papers.id", ondelete="CASCADE"), index=True)
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), index=True)
    response: Mapped[str] = mapped_column(String(20))
    version: Mapped[str | None] = mapped_column(String(100), default=None)
    note: Mapped[str] = mapped_column(Text, default="")
    recorded_by: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
