"""Tables of human review tasks (created by their own Alembic migration, 0010).

A :class:`ReviewTaskRow` is one blinded task for one claim in one logbook revision: the question,
the answer options, the seed of every reviewer's schedule, the share of repeated items, and the
items (each one output, or a pair: ``a`` the baseline's, ``b`` the method's, by the sha256 and
path of files the logbook's recorded runs produced). A :class:`ReviewerRow` is a registered
identity taking part in one task with its **role** there: ``self`` (the logbook's participant),
``team`` (a member of the participant's team), ``organizer``, or ``invited`` (anyone else the
organizers invited). A :class:`ReviewAnswerRow` is one answer to one slot of a reviewer's
schedule, written in its own transaction the moment it is given (a slot is answered once: the
unique key refuses a second answer).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from openrepro.store.models import Base, utcnow

__all__ = ["REVIEWER_ROLES", "ReviewAnswerRow", "ReviewTaskRow", "ReviewerRow"]

#: a reviewer's role in one task; ``self`` and ``team`` are not independent of the logbook
REVIEWER_ROLES = ("self", "team", "organizer", "invited")


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class ReviewTaskRow(Base):
    """One blinded review task for a claim in a logbook revision."""

    __tablename__ = "review_tasks"
    __table_args__ = (UniqueConstraint("name", name="uq_review_tasks_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    logbook_id: Mapped[int] = mapped_column(
        ForeignKey("logbooks.id", ondelete="CASCADE"), index=True
    )
    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), index=True)
    question: Mapped[str] = mapped_column(Text)
    scale: Mapped[str] = mapped_column(String(20))
    options: Mapped[list[str]] = mapped_column(default=list)
    seed: Mapped[int] = mapped_column(Integer, default=0)
    repeat_share: Mapped[float] = mapped_column(Float, default=0.1)
    #: [{"id", "a", "a_sha256", "b", "b_sha256"}]: paths in the logbook, "" for a missing side
    items: Mapped[list[Any]] = mapped_column(default=list)
    #: the check revision the task was made for
    check_revision: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ReviewerRow(Base):
    """A registered identity reviewing one task, with its role there."""

    __tablename__ = "review_reviewers"
    __table_args__ = (
        UniqueConstraint("task_id", "participant_id", name="uq_review_reviewers_task"),
        CheckConstraint(_in("role", REVIEWER_ROLES), name="role"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    task_id: Mapped[int] = mapped_column(
        ForeignKey("review_tasks.id", ondelete="CASCADE"), index=True
    )
    participant_id: Mapped[int] = mapped_column(ForeignKey("participants.id", ondelete="CASCADE"))
    role: Mapped[str] = mapped_column(String(20))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ReviewAnswerRow(Base):
    """One answer to one slot of a reviewer's schedule.

    ``seconds`` is the time per item: from the moment the server sent the page showing the slot
    to the moment it received the answer (server clock; None when the server restarted between
    the two), so it includes the page's transfer and rendering."""

    __tablename__ = "review_answers"
    __table_args__ = (
        UniqueConstraint("task_id", "reviewer_id", "slot", name="uq_review_answers_slot"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    task_id: Mapped[int] = mapped_column(
        ForeignKey("review_tasks.id", ondelete="CASCADE"), index=True
    )
    reviewer_id: Mapped[int] = mapped_column(ForeignKey("review_reviewers.id", ondelete="CASCADE"))
    slot: Mapped[int] = mapped_column(Integer)
    item: Mapped[str] = mapped_column(String(500))
    shown_order: Mapped[str] = mapped_column(String(2))
    answer: Mapped[str] = mapped_column(String(100))  # unblinded: "A"/"B"/an option's label
    shown_answer: Mapped[str] = mapped_column(String(100))  # what the reviewer pressed
    repeat: Mapped[bool] = mapped_column(Boolean, default=False)
    seconds: Mapped[float | None] = mapped_column(Float, default=None)
    answered_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
