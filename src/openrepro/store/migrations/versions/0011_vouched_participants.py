"""Participants that existed before unvouched ones stopped counting are vouched for.

From this revision on, under ``registration = "open"`` a participant who registered themselves
(``identity_source`` empty) and has no confirmed team is shown but not counted in consensus and
credit (openrepro.outcomes.current). Rows written before could not tell an organizer's
registration from a self-registration, so every existing participant is marked ``organizer``
(vouched): an upgrade never changes a challenge's outcomes by itself.

Revision ID: 0011
Revises: 0010

"""

from collections.abc import Sequence

from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("UPDATE participants SET identity_source = 'organizer' WHERE identity_source = ''")
    # derived outcome rows were counted under the old rule: rebuild them on the next read
    op.execute("UPDATE outcome_state SET accepted = ''")


def downgrade() -> None:
    op.execute("UPDATE participants SET identity_source = '' WHERE identity_source = 'organizer'")
