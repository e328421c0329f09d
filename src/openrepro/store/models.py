"""SQLAlchemy 2 models: the whole data model of a challenge.

Tables are created only by Alembic migrations (``openrepro.store.migrations``); a test checks that
the models and the migrations agree.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy import false as sa_false
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from openrepro.vocabulary import VERDICTS

__all__ = [
    "CLAIM_KINDS",
    "CLAIM_STATUSES",
    "JOB_STATUSES",
    "PARTICIPANT_STATUSES",
    "ROLES",
    "Base",
    "Challenge",
    "Claim",
    "ClaimEdit",
    "ClaimExtraction",
    "Job",
    "LLMCacheEntry",
    "Logbook",
    "Paper",
    "Participant",
    "Verdict",
    "VerdictEdit",
    "utcnow",
]

CLAIM_KINDS = ("result", "efficiency", "theory", "qualitative")
CLAIM_STATUSES = ("active", "removed")
JOB_STATUSES = ("scheduling", "running", "completed", "error", "canceled")
ROLES = ("participant", "organizer")
PARTICIPANT_STATUSES = ("active", "pending")

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        dict[str, Any]: JSON,
        list[Any]: JSON,
        list[str]: JSON,
    }


class Challenge(Base):
    """One event: venue, dates, rules, credit policy."""

    __tablename__ = "challenges"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    venue: Mapped[str] = mapped_column(String(300), default="")
    title: Mapped[str] = mapped_column(Text, default="")
    rules: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: Set by ``openrepro freeze``: the record is read-only until ``freeze --reopen``.
    frozen_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)

    papers: Mapped[list[Paper]] = relationship(back_populates="challenge")


class Paper(Base):
    """A paper of the venue, keyed by its venue id (the OpenReview id where one exists)."""

    __tablename__ = "papers"
    __table_args__ = (UniqueConstraint("challenge_id", "venue_id", name="uq_papers_venue_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id", ondelete="CASCADE"))
    venue_id: Mapped[str] = mapped_column(String(300))
    title: Mapped[str] = mapped_column(Text)
    authors: Mapped[list[str]] = mapped_column(default=list)
    abstract: Mapped[str | None] = mapped_column(Text, default=None)
    status: Mapped[str | None] = mapped_column(String(100), default=None, index=True)
    track: Mapped[str | None] = mapped_column(String(100), default=None, index=True)
    decision: Mapped[str | None] = mapped_column(String(200), default=None)
    site_url: Mapped[str | None] = mapped_column(Text, default=None)
    pdf_url: Mapped[str | None] = mapped_column(Text, default=None)
    arxiv_id: Mapped[str | None] = mapped_column(String(50), default=None, index=True)
    keywords: Mapped[list[str] | None] = mapped_column(JSON, default=None)
    full_text: Mapped[str | None] = mapped_column(Text, default=None)
    source: Mapped[str] = mapped_column(String(500), default="")
    licence: Mapped[str | None] = mapped_column(String(200), default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )

    challenge: Mapped[Challenge] = relationship(back_populates="papers")
    claims: Mapped[list[Claim]] = relationship(
        back_populates="paper", cascade="all, delete-orphan", order_by="Claim.id"
    )


class Claim(Base):
    """One checkable statement of a paper, grounded in verbatim quotes.

    ``key`` (``C1``, ``C2``, ...) is stable and never reused within a paper: participants cite
    ``<paper venue id>/<key>``. A removed claim keeps its row with status ``removed``.
    """

    __tablename__ = "claims"
    __table_args__ = (
        UniqueConstraint("paper_id", "key", name="uq_claims_paper_key"),
        CheckConstraint(_in("kind", CLAIM_KINDS), name="kind"),
        CheckConstraint(_in("status", CLAIM_STATUSES), name="status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    paper_id: Mapped[int] = mapped_column(ForeignKey("papers.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(50))
    text: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(20))
    quotes: Mapped[list[Any]] = mapped_column(default=list)
    reported: Mapped[list[Any]] = mapped_column(default=list)
    scale: Mapped[dict[str, Any]] = mapped_column(default=dict)
    status: Mapped[str] = mapped_column(String(20), default="active")
    origin: Mapped[str] = mapped_column(String(20), default="llm")
    provenance: Mapped[dict[str, Any]] = mapped_column(default=dict)
    #: the claim's check (openrepro.claims.checks.Check as JSON); None: no check yet
    check: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    paper: Mapped[Paper] = relationship(back_populates="claims")
    edits: Mapped[list[ClaimEdit]] = relationship(
        back_populates="claim", cascade="all, delete-orphan", order_by="ClaimEdit.id"
    )


class ClaimEdit(Base):
    """One organizer change to a claim: which field, old and new value, who, when, why."""

    __tablename__ = "claim_edits"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), index=True)
    field: Mapped[str] = mapped_column(String(50))
    old_value: Mapped[Any] = mapped_column(JSON, nullable=True)
    new_value: Mapped[Any] = mapped_column(JSON, nullable=True)
    editor: Mapped[str] = mapped_column(String(200))
    reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    claim: Mapped[Claim] = relationship(back_populates="edits")


class ClaimExtraction(Base):
    """The last claim extraction of a paper: lets `claims extract` resume and report."""

    __tablename__ = "claim_extractions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    paper_id: Mapped[int] = mapped_column(ForeignKey("papers.id", ondelete="CASCADE"), unique=True)
    status: Mapped[str] = mapped_column(String(20))
    model: Mapped[str] = mapped_column(String(300), default="")
    prompt_version: Mapped[str] = mapped_column(String(50), default="")
    claims_stored: Mapped[int] = mapped_column(Integer, default=0)
    claims_dropped: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    usage: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LLMCacheEntry(Base):
    """A cached model reply, keyed by (backend, model, prompt version, schema, input) hash."""

    __tablename__ = "llm_cache"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    backend: Mapped[str] = mapped_column(String(50))
    model: Mapped[str] = mapped_column(String(300))
    prompt_version: Mapped[str] = mapped_column(String(50))
    response: Mapped[str] = mapped_column(Text)
    mode: Mapped[str] = mapped_column(String(20), default="json_schema")
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Participant(Base):
    """A person (plus a coding agent) taking part, possibly in a team."""

    __tablename__ = "participants"
    __table_args__ = (
        UniqueConstraint("challenge_id", "handle", name="uq_participants_handle"),
        CheckConstraint(_in("role", ROLES), name="role"),
        CheckConstraint(_in("status", PARTICIPANT_STATUSES), name="status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id", ondelete="CASCADE"))
    handle: Mapped[str] = mapped_column(String(200))
    name: Mapped[str] = mapped_column(Text, default="")
    team: Mapped[str | None] = mapped_column(String(200), default=None)
    email: Mapped[str | None] = mapped_column(String(320), default=None)
    budget_usd: Mapped[float] = mapped_column(Float, default=0.0)
    role: Mapped[str] = mapped_column(String(20), default="participant")
    #: sha256 of the API token; the token itself is shown once and never stored.
    token_hash: Mapped[str | None] = mapped_column(String(64), default=None, unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # -- identity (registration policy, confirmed teams, stored bytes): migration 0007 --
    #: ``pending`` until an organizer approves the registration (policy ``approval``).
    status: Mapped[str] = mapped_column(String(20), default="active", server_default="active")
    #: The team is confirmed by one of its confirmed members or an organizer; until then the
    #: participant counts alone in consensus (see :mod:`openrepro.identity.teams`).
    team_confirmed: Mapped[bool] = mapped_column(default=False, server_default=sa_false())
    #: Where the identity was checked: ``organizer`` (registered by one, or created by an
    #: organizer's command such as ``submit --as``: the default), ``invite``, ``hf-oauth``, or
    #: ``""``: a self-registration under ``open``, which is shown but not counted
    #: (:mod:`openrepro.outcomes.current`).
    identity_source: Mapped[str] = mapped_column(String(20), default="organizer", server_default="")


class Logbook(Base):
    """One reproduction attempt by one participant for one paper (a revision of it)."""

    __tablename__ = "logbooks"
    __table_args__ = (
        UniqueConstraint("paper_id", "participant_id", "revision", name="uq_logbooks_revision"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    paper_id: Mapped[int] = mapped_column(ForeignKey("papers.id", ondelete="CASCADE"), index=True)
    participant_id: Mapped[int] = mapped_column(
        ForeignKey("participants.id", ondelete="CASCADE"), index=True
    )
    revision: Mapped[str] = mapped_column(String(100))
    title: Mapped[str] = mapped_column(Text, default="")
    source_url: Mapped[str | None] = mapped_column(Text, default=None)
    format: Mapped[str] = mapped_column(String(50), default="trackio")
    manifest: Mapped[dict[str, Any]] = mapped_column(default=dict)
    submitted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: Bytes this revision keeps on the board (its record and its files), for the participant's
    #: cap ``participant_max_bytes``; migration 0007 (0 for older rows).
    stored_bytes: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class Verdict(Base):
    """The judge's verdict on one claim in one logbook revision under one judge config."""

    __tablename__ = "verdicts"
    __table_args__ = (
        UniqueConstraint("logbook_id", "claim_id", "judge_config", name="uq_verdicts_judge_config"),
        CheckConstraint(_in("verdict", VERDICTS), name="verdict"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    logbook_id: Mapped[int] = mapped_column(
        ForeignKey("logbooks.id", ondelete="CASCADE"), index=True
    )
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), index=True)
    verdict: Mapped[str] = mapped_column(String(20))
    rationale: Mapped[str] = mapped_column(Text, default="")
    evidence: Mapped[list[Any]] = mapped_column(default=list)
    #: how code decided: for a claim with a check, the evaluation (the check, the bound values
    #: with their pointers, the test and its numbers), so a reader can redo it
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)
    flags: Mapped[list[str]] = mapped_column(default=list)
    provenance: Mapped[str] = mapped_column(String(30), default="testimony")
    judge_config: Mapped[str] = mapped_column(String(100))
    #: the check the verdict was judged under (its digest; "" for none): a new check or a newly
    #: confirmed proposal makes the verdict stale, so ``judge`` decides the claim again
    check_digest: Mapped[str] = mapped_column(String(64), default="", server_default="")
    #: judged under the participant's own unconfirmed proposal: shown, counted nowhere
    provisional: Mapped[bool] = mapped_column(default=False, server_default=sa_false())
    judge_model: Mapped[str] = mapped_column(String(300), default="")
    prompt_version: Mapped[str] = mapped_column(String(50), default="")
    tokens_in: Mapped[int] = mapped_column(Integer, default=0)
    tokens_out: Mapped[int] = mapped_column(Integer, default=0)
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    edits: Mapped[list[VerdictEdit]] = relationship(
        back_populates="verdict", cascade="all, delete-orphan", order_by="VerdictEdit.id"
    )


class VerdictEdit(Base):
    """An organizer override of a verdict: the old value is kept with who, when and why."""

    __tablename__ = "verdict_edits"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    verdict_id: Mapped[int] = mapped_column(
        ForeignKey("verdicts.id", ondelete="CASCADE"), index=True
    )
    old_value: Mapped[str] = mapped_column(String(20))
    new_value: Mapped[str] = mapped_column(String(20))
    editor: Mapped[str] = mapped_column(String(200))
    reason: Mapped[str] = mapped_column(Text)
    #: What made the change: ``override`` (an organizer) or ``recheck`` (a re-check decision).
    source: Mapped[str] = mapped_column(String(30), default="override")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    verdict: Mapped[Verdict] = relationship(back_populates="edits")


class Job(Base):
    """A compute job launched for a participant, tied to a paper (and optionally a claim)."""

    __tablename__ = "jobs"
    __table_args__ = (
        CheckConstraint(_in("status", JOB_STATUSES), name="status"),
        Index("ix_jobs_participant_status", "participant_id", "status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("challenges.id", ondelete="CASCADE"))
    participant_id: Mapped[int | None] = mapped_column(
        ForeignKey("participants.id", ondelete="SET NULL"), default=None
    )
    paper_id: Mapped[int | None] = mapped_column(
        ForeignKey("papers.id", ondelete="SET NULL"), default=None
    )
    claim_id: Mapped[int | None] = mapped_column(
        ForeignKey("claims.id", ondelete="SET NULL"), default=None
    )
    backend: Mapped[str] = mapped_column(String(30))
    external_id: Mapped[str | None] = mapped_column(String(200), default=None)
    flavor: Mapped[str] = mapped_column(String(100), default="")
    command: Mapped[list[str]] = mapped_column(default=list)
    status: Mapped[str] = mapped_column(String(20), default="scheduling")
    reserved_usd: Mapped[float] = mapped_column(Float, default=0.0)
    cost_usd: Mapped[float | None] = mapped_column(Float, default=None)
    labels: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    # -- jobs and credit: migration 0004 --
    exit_code: Mapped[int | None] = mapped_column(Integer, default=None)
    timeout_s: Mapped[float] = mapped_column(Float, default=0.0)
    #: Price of the flavor when the job was launched, in USD per hour of running time.
    price_per_hour_usd: Mapped[float] = mapped_column(Float, default=0.0)
    cost_is_estimate: Mapped[bool] = mapped_column(default=True)
    log_path: Mapped[str | None] = mapped_column(Text, default=None)
    workdir: Mapped[str | None] = mapped_column(Text, default=None)
    #: Local backend: the supervisor's pid and the command's process group.
    pid: Mapped[int | None] = mapped_column(Integer, default=None)
    pgid: Mapped[int | None] = mapped_column(Integer, default=None)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    #: When the reservation was settled (charged and released) in the ledger; NULL while held.
    settled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )
