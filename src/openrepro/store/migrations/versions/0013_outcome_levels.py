"""Derived outcomes keep the provenance level of verified claims.

``outcome_verdicts.below_minimum`` marks a current verdict the judge found verified on evidence
below the challenge's ``min_provenance_verified`` (counted as inconclusive);
``outcome_claims.level`` is the strongest level behind a verified claim and
``outcome_claims.below_minimum`` the strongest level of a claim's verified verdicts that do not
count (openrepro.outcomes.consensus). The derived rows are rebuilt on the next read.

Revision ID: 0013
Revises: 0012

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "outcome_verdicts",
        sa.Column("below_minimum", sa.Integer(), nullable=False, server_default="0"),
    )
    op.add_column("outcome_claims", sa.Column("level", sa.String(length=30), nullable=True))
    op.add_column("outcome_claims", sa.Column("below_minimum", sa.String(length=30), nullable=True))
    # the derived rows were built without these columns: rebuild them on the next read
    op.execute("UPDATE outcome_state SET accepted = ''")


def downgrade() -> None:
    op.drop_column("outcome_claims", "below_minimum")
    op.drop_column("outcome_claims", "level")
    op.drop_column("outcome_verdicts", "below_minimum")
