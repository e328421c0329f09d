"""Tables of the provenance domain (created by their own Alembic migration)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, DateTime, Float, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from openrepro.store.models import Base, utcnow
from openrepro.vocabulary import PROVENANCE_LEVELS

__all__ = ["REPLAY_LEVELS", "REPLAY_STATUSES", "Replay"]

REPLAY_STATUSES = (
    "matched", "mismatched", "not_computed", "failed", "timeout", "skipped", "queued"
)  # fmt: skip
#: the levels a replay or attestation can give a run (migration 0006's constraint): every
#: provenance level but ``reviewed``, which only an independent human review gives a verdict
REPLAY_LEVELS = tuple(level for level in PROVENANCE_LEVELS if level != "reviewed")


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Replay(Base):
    """One re-run (or attestation) of a logbook's recorded run by openrepro.

    ``level`` is the provenance the run earns from it: ``replayed`` for a matched re-run,
    ``attested`` for a run whose platform logs matched, else ``self-recorded``/``testimony``.
    """

    __tablename__ = "replays"
    __table_args__ = (
        CheckConstraint(_in("status", REPLAY_STATUSES), name="status"),
        CheckConstraint(_in("level", REPLAY_LEVELS), name="level"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    logbook_id: Mapped[int] = mapped_column(
        ForeignKey("logbooks.id", ondelete="CASCADE"), index=True
    )
    claim_id: Mapped[int | None] = mapped_column(
        ForeignKey("claims.id", ondelete="SET NULL"), default=None
    )
    run_id: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(20), default="replay")  # replay | attest
    status: Mapped[str] = mapped_column(String(20))
    level: Mapped[str] = mapped_column(String(30), default="self-recorded")
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
