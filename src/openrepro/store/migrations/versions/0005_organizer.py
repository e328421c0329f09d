"""Organizer workflows: re-checks, outreach, author responses.

Revision ID: 0005
Revises: 0004

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=op.f(f"fk_{table}_{column}_{target}"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "recheck_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("challenge_id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("model", sa.String(length=300), nullable=False),
        sa.Column("prompt_version", sa.String(length=50), nullable=False),
        sa.Column("findings", sa.JSON(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("usage", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _fk("recheck_runs", "challenge_id", "challenges"),
        _fk("recheck_runs", "claim_id", "claims"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recheck_runs")),
    )
    with op.batch_alter_table("recheck_runs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_recheck_runs_claim_id"), ["claim_id"], unique=False)

    op.create_table(
        "recheck_decisions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("challenge_id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("decision", sa.String(length=30), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("editor", sa.String(length=200), nullable=False),
        sa.Column("verdict_ids", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "decision IN ('confirmed', 'rejected', 'needs-more-evidence')",
            name=op.f("ck_recheck_decisions_decision"),
        ),
        _fk("recheck_decisions", "challenge_id", "challenges"),
        _fk("recheck_decisions", "claim_id", "claims"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recheck_decisions")),
    )
    with op.batch_alter_table("recheck_decisions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_recheck_decisions_claim_id"), ["claim_id"], unique=False
        )

    op.create_table(
        "outreach_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("challenge_id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("recipients", sa.JSON(), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("eml_path", sa.Text(), nullable=True),
        sa.Column("message_id", sa.String(length=300), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('draft', 'sent')", name=op.f("ck_outreach_messages_status")),
        _fk("outreach_messages", "challenge_id", "challenges"),
        _fk("outreach_messages", "paper_id", "papers"),
        _fk("outreach_messages", "claim_id", "claims"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outreach_messages")),
    )
    with op.batch_alter_table("outreach_messages", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_outreach_messages_claim_id"), ["claim_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_outreach_messages_paper_id"), ["paper_id"], unique=False
        )

    op.create_table(
        "author_responses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("challenge_id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("response", sa.String(length=20), nullable=False),
        sa.Column("version", sa.String(length=100), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("recorded_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "response IN ('agrees', 'disputes', 'fixed', 'no-answer')",
            name=op.f("ck_author_responses_response"),
        ),
        _fk("author_responses", "challenge_id", "challenges"),
        _fk("author_responses", "paper_id", "papers"),
        _fk("author_responses", "claim_id", "claims"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_author_responses")),
    )
    with op.batch_alter_table("author_responses", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_author_responses_claim_id"), ["claim_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_author_responses_paper_id"), ["paper_id"], unique=False
        )


def downgrade() -> None:
    for table, columns in (
        ("author_responses", ("claim_id", "paper_id")),
        ("outreach_messages", ("claim_id", "paper_id")),
        ("recheck_decisions", ("claim_id",)),
        ("recheck_runs", ("claim_id",)),
    ):
        with op.batch_alter_table(table, schema=None) as batch_op:
            for column in columns:
                batch_op.drop_index(batch_op.f(f"ix_{table}_{column}"))
        op.drop_table(table)
