"""Derived outcome tables: current verdicts and claim consensus per paper, kept by triggers.

Store triggers bump ``outcome_marks`` for a paper whenever its verdicts, verdict edits,
logbooks, claims, participants' teams or the paper itself change; the derived tables
(``outcome_logbooks``, ``outcome_verdicts``, ``outcome_claims``, ``outcome_papers``,
``outcome_tallies``, ``outcome_testimony``) are
rebuilt for marked papers before they are read (see ``openrepro.outcomes.derived``). Nothing
is filled here: the first read after this upgrade builds every paper.

Revision ID: 0009
Revises: 0008

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from openrepro.store.tables_outcomes import create_outcome_marks, drop_outcome_marks

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_DERIVED = (
    "outcome_logbooks", "outcome_verdicts", "outcome_claims", "outcome_papers", "outcome_tallies",
    "outcome_testimony",
)  # fmt: skip


def _ints(*names: str) -> list[sa.Column]:  # type: ignore[type-arg]
    return [sa.Column(n, sa.Integer(), nullable=False) for n in names]


def _index(table: str, *columns: str) -> None:
    for column in columns:
        op.create_index(op.f(f"ix_{table}_{column}"), table, [column], unique=False)


def upgrade() -> None:
    op.create_table(
        "outcome_marks",
        *_ints("paper_id", "challenge_id", "mark"),
        sa.PrimaryKeyConstraint("paper_id", name=op.f("pk_outcome_marks")),
    )
    _index("outcome_marks", "challenge_id")
    op.create_table(
        "outcome_built",
        *_ints("paper_id", "mark"),
        sa.PrimaryKeyConstraint("paper_id", name=op.f("pk_outcome_built")),
    )
    op.create_table(
        "outcome_state",
        sa.Column("challenge_id", sa.Integer(), nullable=False),
        sa.Column("accepted", sa.String(length=200), nullable=False),
        sa.Column("refreshes", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("challenge_id", name=op.f("pk_outcome_state")),
    )
    op.create_table(
        "outcome_logbooks",
        *_ints("logbook_id", "challenge_id", "paper_id", "participant_id", "verdicts",
               "credit_verified", "credit_falsified"),
        sa.PrimaryKeyConstraint("logbook_id", name=op.f("pk_outcome_logbooks")),
    )  # fmt: skip
    _index("outcome_logbooks", "challenge_id", "paper_id")
    op.create_table(
        "outcome_papers",
        *_ints("paper_id", "challenge_id"),
        sa.Column("venue_id", sa.String(length=300), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        *_ints("claims", "logbooks", "verified", "falsified", "contested", "toy_only",
               "inconclusive", "unattempted", "examined"),
        sa.PrimaryKeyConstraint("paper_id", name=op.f("pk_outcome_papers")),
    )  # fmt: skip
    _index("outcome_papers", "challenge_id")
    op.create_table(
        "outcome_tallies",
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("value", sa.String(length=20), nullable=False),
        sa.Column("provenance", sa.String(length=30), nullable=False),
        *_ints("challenge_id", "n"),
        sa.PrimaryKeyConstraint("paper_id", "value", "provenance", name=op.f("pk_outcome_tallies")),
    )
    _index("outcome_tallies", "challenge_id")
    op.create_table(
        "outcome_verdicts",
        *_ints("verdict_id", "challenge_id", "paper_id", "claim_id", "logbook_id",
               "participant_id"),
        sa.Column("grp", sa.String(length=220), nullable=False),
        sa.Column("provenance", sa.String(length=30), nullable=False),
        sa.Column("edited", sa.Integer(), nullable=False),
        sa.Column("value", sa.String(length=20), nullable=False),
        sa.PrimaryKeyConstraint("verdict_id", name=op.f("pk_outcome_verdicts")),
    )  # fmt: skip
    _index("outcome_verdicts", "challenge_id", "paper_id", "claim_id", "logbook_id")
    op.create_table(
        "outcome_claims",
        *_ints("claim_id", "challenge_id", "paper_id"),
        sa.Column("venue_id", sa.String(length=300), nullable=False),
        sa.Column("key", sa.String(length=50), nullable=False),
        sa.Column("consensus", sa.String(length=20), nullable=False),
        *_ints("logbooks", "nv", "nf", "nt", "ni", "edited"),
        sa.PrimaryKeyConstraint("claim_id", name=op.f("pk_outcome_claims")),
    )
    _index("outcome_claims", "challenge_id", "paper_id")
    op.create_table(
        "outcome_testimony",
        *_ints("logbook_id", "claim_id", "challenge_id", "paper_id"),
        sa.PrimaryKeyConstraint("logbook_id", "claim_id", name=op.f("pk_outcome_testimony")),
    )
    _index("outcome_testimony", "challenge_id", "paper_id")
    create_outcome_marks(op.get_bind())


def downgrade() -> None:
    drop_outcome_marks(op.get_bind())
    for table in (*_DERIVED, "outcome_state", "outcome_built", "outcome_marks"):
        op.drop_table(table)
