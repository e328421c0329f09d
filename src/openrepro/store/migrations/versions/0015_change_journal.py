"""The store's change journal (openrepro.store.journal): one row per record a committed
transaction wrote, in commit order, read by the board to know which pages changed.

Revision ID: 0015
Revises: 0014

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "change_journal",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tag", sa.String(length=320), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_change_journal")),
    )


def downgrade() -> None:
    op.drop_table("change_journal")
