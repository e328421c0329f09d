"""A replay may find that a run's numbers were not computed by its code: status
``not_computed`` (a literal print, a copy of a file it was given, the same numbers under a
fresh seed; docs/provenance.md).

Revision ID: 0017
Revises: 0016

"""

from collections.abc import Sequence

from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OLD = "status IN ('matched', 'mismatched', 'failed', 'timeout', 'skipped', 'queued')"
_NEW = (
    "status IN ('matched', 'mismatched', 'not_computed', 'failed', 'timeout', 'skipped', 'queued')"
)


def _status(condition: str) -> None:
    with op.batch_alter_table("replays", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("ck_replays_status"), type_="check")
        batch_op.create_check_constraint(batch_op.f("ck_replays_status"), condition)


def upgrade() -> None:
    _status(_NEW)


def downgrade() -> None:
    op.execute("UPDATE replays SET status = 'skipped' WHERE status = 'not_computed'")
    _status(_OLD)
