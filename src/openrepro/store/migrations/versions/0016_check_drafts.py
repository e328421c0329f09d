"""Checks drafted in bulk by models (or the rules), confirmed by independent drafters.

``check_drafts`` holds one drafter's check (or why it drafted none) per claim, drafter and
prompt version, with its tokens and seconds (``claims check draft --all``); a draft counts only
once an independent drafter agrees (openrepro.claims.drafts).

Revision ID: 0016
Revises: 0015

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "check_drafts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("drafter", sa.String(length=200), nullable=False),
        sa.Column("family", sa.String(length=60), nullable=False),
        sa.Column("prompt_version", sa.String(length=60), nullable=False),
        sa.Column("check", sa.JSON(), nullable=True),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("form", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("confirmed_by", sa.String(length=300), nullable=False),
        sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('drafted', 'confirmed', 'none')", name=op.f("ck_check_drafts_status")
        ),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claims.id"],
            name=op.f("fk_check_drafts_claim_id_claims"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_check_drafts")),
        sa.UniqueConstraint(
            "claim_id", "drafter", "prompt_version", name="uq_check_drafts_drafter"
        ),
    )
    with op.batch_alter_table("check_drafts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_check_drafts_claim_id"), ["claim_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("check_drafts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_check_drafts_claim_id"))
    op.drop_table("check_drafts")
