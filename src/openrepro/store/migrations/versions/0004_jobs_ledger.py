"""Compute jobs and the credit ledger.

Revision ID: 0004
Revises: 0003

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("exit_code", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("timeout_s", sa.Float(), nullable=False, server_default="0"))
        batch_op.add_column(
            sa.Column("price_per_hour_usd", sa.Float(), nullable=False, server_default="0")
        )
        batch_op.add_column(
            sa.Column("cost_is_estimate", sa.Boolean(), nullable=False, server_default=sa.true())
        )
        batch_op.add_column(sa.Column("log_path", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("workdir", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("pid", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("pgid", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("error", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(
            sa.Column(
                "updated_at",
                sa.DateTime(timezone=True),
                nullable=False,
                server_default=sa.func.current_timestamp(),
            )
        )

    op.create_table(
        "ledger_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("challenge_id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.Integer(), nullable=False),
        sa.Column("job_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("amount_usd", sa.Float(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind IN ('grant', 'reserve', 'release', 'charge')",
            name=op.f("ck_ledger_entries_kind"),
        ),
        sa.ForeignKeyConstraint(
            ["challenge_id"],
            ["challenges.id"],
            name=op.f("fk_ledger_entries_challenge_id_challenges"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["job_id"],
            ["jobs.id"],
            name=op.f("fk_ledger_entries_job_id_jobs"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["participant_id"],
            ["participants.id"],
            name=op.f("fk_ledger_entries_participant_id_participants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_entries")),
    )
    with op.batch_alter_table("ledger_entries", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ledger_entries_job_id"), ["job_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_ledger_entries_participant_id"), ["participant_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("ledger_entries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ledger_entries_participant_id"))
        batch_op.drop_index(batch_op.f("ix_ledger_entries_job_id"))
    op.drop_table("ledger_entries")
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        for column in (
            "updated_at", "settled_at", "error", "pgid", "pid", "workdir", "log_path",
            "cost_is_estimate", "price_per_hour_usd", "timeout_s", "exit_code",
        ):  # fmt: skip
            batch_op.drop_column(column)
