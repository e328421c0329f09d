"""Evidence provenance: replays and attested runs.

Revision ID: 0006
Revises: 0005

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "replays",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("logbook_id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=True),
        sa.Column("run_id", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("level", sa.String(length=30), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('matched', 'mismatched', 'failed', 'timeout', 'skipped', 'queued')",
            name=op.f("ck_replays_status"),
        ),
        sa.CheckConstraint(
            "level IN ('testimony', 'self-recorded', 'replayed', 'attested')",
            name=op.f("ck_replays_level"),
        ),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claims.id"],
            name=op.f("fk_replays_claim_id_claims"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["logbook_id"],
            ["logbooks.id"],
            name=op.f("fk_replays_logbook_id_logbooks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_replays")),
    )
    with op.batch_alter_table("replays", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_replays_logbook_id"), ["logbook_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("replays", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_replays_logbook_id"))
    op.drop_table("replays")
