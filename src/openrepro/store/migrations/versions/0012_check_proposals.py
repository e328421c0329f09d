"""Participants' check proposals, and the check each verdict was judged under.

``check_proposals`` holds the checks participants propose for claims (``checks.json`` in a
logbook, ``openrepro check propose``); ``verdicts.check_digest`` names the check a verdict was
judged under (a changed check makes it stale) and ``verdicts.provisional`` marks a verdict under
a participant's own unconfirmed proposal (counted nowhere).

Revision ID: 0012
Revises: 0011

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "check_proposals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.Integer(), nullable=False),
        sa.Column("logbook_id", sa.Integer(), nullable=True),
        sa.Column("check", sa.JSON(), nullable=False),
        sa.Column("form", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("confirmed_by", sa.String(length=300), nullable=False),
        sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('proposed', 'confirmed', 'superseded')",
            name=op.f("ck_check_proposals_status"),
        ),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claims.id"],
            name=op.f("fk_check_proposals_claim_id_claims"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["logbook_id"],
            ["logbooks.id"],
            name=op.f("fk_check_proposals_logbook_id_logbooks"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["participant_id"],
            ["participants.id"],
            name=op.f("fk_check_proposals_participant_id_participants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_check_proposals")),
        sa.UniqueConstraint("claim_id", "participant_id", "form", name="uq_check_proposals_form"),
    )
    with op.batch_alter_table("check_proposals", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_check_proposals_claim_id"), ["claim_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_check_proposals_participant_id"), ["participant_id"], unique=False
        )
    # plain ADD COLUMN (no batch copy on SQLite: that would drop the outcome triggers of 0009)
    op.add_column(
        "verdicts",
        sa.Column("check_digest", sa.String(length=64), nullable=False, server_default=""),
    )
    op.add_column(
        "verdicts",
        sa.Column("provisional", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_column("verdicts", "provisional")
    op.drop_column("verdicts", "check_digest")
    with op.batch_alter_table("check_proposals", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_check_proposals_participant_id"))
        batch_op.drop_index(batch_op.f("ix_check_proposals_claim_id"))
    op.drop_table("check_proposals")
