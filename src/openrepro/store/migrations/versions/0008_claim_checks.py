"""Checkable claims: each claim's check, and how code decided each verdict.

``claims.check`` holds the claim's typed check (JSON; NULL when no rule could draft one, and for
claims stored before checks existed until an organizer drafts them: ``openrepro claims check
redraft``). ``verdicts.details`` holds the evaluation of the check a verdict rests on.

Revision ID: 0008
Revises: 0007

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.add_column(sa.Column("check", sa.JSON(), nullable=True))
    with op.batch_alter_table("verdicts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("details", sa.JSON(), nullable=False, server_default="{}"))


def downgrade() -> None:
    with op.batch_alter_table("verdicts", schema=None) as batch_op:
        batch_op.drop_column("details")
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.drop_column("check")
