"""Human review: tasks, their reviewers (registered identities with a role) and each answer.

Revision ID: 0010
Revises: 0009

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "review_tasks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("logbook_id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("scale", sa.String(length=20), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("repeat_share", sa.Float(), nullable=False),
        sa.Column("items", sa.JSON(), nullable=False),
        sa.Column("check_revision", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claims.id"],
            name=op.f("fk_review_tasks_claim_id_claims"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["logbook_id"],
            ["logbooks.id"],
            name=op.f("fk_review_tasks_logbook_id_logbooks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review_tasks")),
        sa.UniqueConstraint("name", name="uq_review_tasks_name"),
    )
    with op.batch_alter_table("review_tasks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_review_tasks_claim_id"), ["claim_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_review_tasks_logbook_id"), ["logbook_id"], unique=False
        )
    op.create_table(
        "review_reviewers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("task_id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "role IN ('self', 'team', 'organizer', 'invited')",
            name=op.f("ck_review_reviewers_role"),
        ),
        sa.ForeignKeyConstraint(
            ["participant_id"],
            ["participants.id"],
            name=op.f("fk_review_reviewers_participant_id_participants"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["task_id"],
            ["review_tasks.id"],
            name=op.f("fk_review_reviewers_task_id_review_tasks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review_reviewers")),
        sa.UniqueConstraint("task_id", "participant_id", name="uq_review_reviewers_task"),
    )
    with op.batch_alter_table("review_reviewers", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_review_reviewers_task_id"), ["task_id"], unique=False)
    op.create_table(
        "review_answers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("task_id", sa.Integer(), nullable=False),
        sa.Column("reviewer_id", sa.Integer(), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("item", sa.String(length=500), nullable=False),
        sa.Column("shown_order", sa.String(length=2), nullable=False),
        sa.Column("answer", sa.String(length=100), nullable=False),
        sa.Column("shown_answer", sa.String(length=100), nullable=False),
        sa.Column("repeat", sa.Boolean(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["reviewer_id"],
            ["review_reviewers.id"],
            name=op.f("fk_review_answers_reviewer_id_review_reviewers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["task_id"],
            ["review_tasks.id"],
            name=op.f("fk_review_answers_task_id_review_tasks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review_answers")),
        sa.UniqueConstraint("task_id", "reviewer_id", "slot", name="uq_review_answers_slot"),
    )
    with op.batch_alter_table("review_answers", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_review_answers_task_id"), ["task_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("review_answers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_review_answers_task_id"))
    op.drop_table("review_answers")
    with op.batch_alter_table("review_reviewers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_review_reviewers_task_id"))
    op.drop_table("review_reviewers")
    with op.batch_alter_table("review_tasks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_review_tasks_logbook_id"))
        batch_op.drop_index(batch_op.f("ix_review_tasks_claim_id"))
    op.drop_table("review_tasks")
