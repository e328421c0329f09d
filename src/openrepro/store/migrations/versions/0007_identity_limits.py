"""Identity worth counting and storage caps: participant status (approval), confirmed teams,
where an identity was checked, invite codes, and the bytes each logbook revision keeps.

Existing teams start unconfirmed (they were self-declared): an organizer confirms them with
``openrepro participants confirm-team``. Existing logbooks count 0 stored bytes.

Revision ID: 0007
Revises: 0006

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("participants", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("status", sa.String(length=20), nullable=False, server_default="active")
        )
        batch_op.add_column(
            sa.Column("team_confirmed", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(
            sa.Column("identity_source", sa.String(length=20), nullable=False, server_default="")
        )
        batch_op.create_check_constraint(
            op.f("ck_participants_status"), "status IN ('active', 'pending')"
        )
    with op.batch_alter_table("logbooks", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("stored_bytes", sa.BigInteger(), nullable=False, server_default="0")
        )
    op.create_table(
        "invites",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("challenge_id", sa.Integer(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("uses_left", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["challenge_id"],
            ["challenges.id"],
            name=op.f("fk_invites_challenge_id_challenges"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_invites")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_invites_code_hash")),
    )
    with op.batch_alter_table("invites", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_invites_challenge_id"), ["challenge_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("invites", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_invites_challenge_id"))
    op.drop_table("invites")
    with op.batch_alter_table("logbooks", schema=None) as batch_op:
        batch_op.drop_column("stored_bytes")
    with op.batch_alter_table("participants", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_participants_status"), type_="check")
        batch_op.drop_column("identity_source")
        batch_op.drop_column("team_confirmed")
        batch_op.drop_column("status")
