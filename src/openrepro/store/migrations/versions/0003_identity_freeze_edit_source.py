"""Identity and roles (participants' role and hashed API token), freeze state, edit source.

Revision ID: 0003
Revises: 0002

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.add_column(sa.Column("frozen_at", sa.DateTime(timezone=True), nullable=True))

    with op.batch_alter_table("participants", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("role", sa.String(length=20), nullable=False, server_default="participant")
        )
        batch_op.add_column(sa.Column("token_hash", sa.String(length=64), nullable=True))
        batch_op.create_unique_constraint(batch_op.f("uq_participants_token_hash"), ["token_hash"])
        batch_op.create_check_constraint(
            op.f("ck_participants_role"), "role IN ('participant', 'organizer')"
        )

    with op.batch_alter_table("verdict_edits", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("source", sa.String(length=30), nullable=False, server_default="override")
        )


def downgrade() -> None:
    with op.batch_alter_table("verdict_edits", schema=None) as batch_op:
        batch_op.drop_column("source")
    with op.batch_alter_table("participants", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_participants_role"), type_="check")
        batch_op.drop_constraint(batch_op.f("uq_participants_token_hash"), type_="unique")
        batch_op.drop_column("token_hash")
        batch_op.drop_column("role")
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.drop_column("frozen_at")
