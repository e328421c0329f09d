"""The judge queue: work items per (logbook revision, claim, inputs, judge version), the
participants' turns for round robin, and the queue's named state (openrepro.store.tables_queue).

Revision ID: 0014
Revises: 0013

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STATUSES = ("queued", "judging", "done", "failed", "replaced")


def upgrade() -> None:
    op.create_table(
        "judge_queue",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("logbook_id", sa.Integer(),
                  sa.ForeignKey("logbooks.id", ondelete="CASCADE"), nullable=False),
        sa.Column("claim_id", sa.Integer(),
                  sa.ForeignKey("claims.id", ondelete="CASCADE"), nullable=False),
        sa.Column("participant_id", sa.Integer(),
                  sa.ForeignKey("participants.id", ondelete="CASCADE"), nullable=False),
        sa.Column("paper_id", sa.Integer(),
                  sa.ForeignKey("papers.id", ondelete="CASCADE"), nullable=False),
        sa.Column("inputs", sa.String(length=100), nullable=False),
        sa.Column("judge_version", sa.String(length=100), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=30), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("worker", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("available_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("logbook_id", "claim_id", "inputs", "judge_version",
                            name="uq_judge_queue_key"),
        sa.CheckConstraint("status IN (" + ", ".join(f"'{s}'" for s in STATUSES) + ")",
                           name=op.f("ck_judge_queue_status")),
    )  # fmt: skip
    op.create_index("ix_judge_queue_claim_id", "judge_queue", ["claim_id"])
    op.create_index("ix_judge_queue_claimable", "judge_queue",
                    ["status", "priority", "available_at"])  # fmt: skip
    op.create_index("ix_judge_queue_logbook", "judge_queue", ["logbook_id", "status"])
    op.create_index("ix_judge_queue_participant", "judge_queue", ["participant_id", "status"])
    op.create_table(
        "judge_queue_turns",
        sa.Column("participant_id", sa.Integer(),
                  sa.ForeignKey("participants.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("turn", sa.Integer(), nullable=False),
    )  # fmt: skip
    op.create_table(
        "judge_queue_state",
        sa.Column("name", sa.String(length=50), primary_key=True),
        sa.Column("value", sa.String(length=300), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("judge_queue_state")
    op.drop_table("judge_queue_turns")
    op.drop_table("judge_queue")
