"""Derived outcome tables: the current verdicts and claim consensus, kept per paper (migration
0009); :mod:`openrepro.outcomes.derived` fills them and states their invariant.

* :class:`OutcomeMark`: a counter per paper that store triggers bump in the same transaction as
  any change to what that paper's current verdicts or consensus are (verdicts, verdict edits,
  logbooks, claims, participants' teams, papers), whatever code or SQL makes the change;
* :class:`OutcomeBuilt`: the counter value a paper's derived rows were last built from; a paper
  whose mark is newer than its built value (or never built) is *stale*;
* :class:`OutcomeState`: per challenge, the provenance levels (``min_provenance_verified``)
  the rows were built with; another setting rebuilds them all;
* :class:`OutcomeLogbook`, :class:`OutcomeVerdict`, :class:`OutcomeClaim`,
  :class:`OutcomePaper`, :class:`OutcomeTally`, :class:`OutcomeTestimony`: the derived rows
  themselves, each with its paper and challenge.

The triggers are plain SQL on SQLite and PL/pgSQL on PostgreSQL (:func:`create_outcome_marks`);
each marks a paper with one upsert, locking papers in id order so writers never deadlock.
"""

from __future__ import annotations

from sqlalchemy import Connection, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from openrepro.store.models import Base

__all__ = [
    "OutcomeBuilt",
    "OutcomeClaim",
    "OutcomeLogbook",
    "OutcomeMark",
    "OutcomePaper",
    "OutcomeState",
    "OutcomeTally",
    "OutcomeTestimony",
    "OutcomeVerdict",
    "create_outcome_marks",
    "drop_outcome_marks",
]


class OutcomeMark(Base):
    """How many changes a paper's outcome inputs have seen (bumped by triggers only)."""

    __tablename__ = "outcome_marks"

    paper_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    challenge_id: Mapped[int] = mapped_column(Integer, index=True)
    mark: Mapped[int] = mapped_column(Integer)


class OutcomeBuilt(Base):
    """The mark a paper's derived rows were built from."""

    __tablename__ = "outcome_built"

    paper_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    mark: Mapped[int] = mapped_column(Integer)


class OutcomeState(Base):
    """The setting the derived rows of a challenge were built with."""

    __tablename__ = "outcome_state"

    challenge_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    accepted: Mapped[str] = mapped_column(String(200))  # provenance levels, comma-separated
    refreshes: Mapped[int] = mapped_column(Integer)


class OutcomeLogbook(Base):
    """A current logbook (the newest revision of a (paper, participant))."""

    __tablename__ = "outcome_logbooks"

    logbook_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    challenge_id: Mapped[int] = mapped_column(Integer, index=True)
    paper_id: Mapped[int] = mapped_column(Integer, index=True)
    participant_id: Mapped[int] = mapped_column(Integer)
    verdicts: Mapped[int] = mapped_column(Integer)  # its current verdicts
    credit_verified: Mapped[int] = mapped_column(Integer)  # ... agreeing with consensus
    credit_falsified: Mapped[int] = mapped_column(Integer)


class OutcomePaper(Base):
    """A paper's outcome counts (the rows of ``paper_outcomes``)."""

    __tablename__ = "outcome_papers"

    paper_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    challenge_id: Mapped[int] = mapped_column(Integer, index=True)
    venue_id: Mapped[str] = mapped_column(String(300))
    title: Mapped[str] = mapped_column(Text)
    claims: Mapped[int] = mapped_column(Integer)
    logbooks: Mapped[int] = mapped_column(Integer)
    verified: Mapped[int] = mapped_column(Integer)
    falsified: Mapped[int] = mapped_column(Integer)
    contested: Mapped[int] = mapped_column(Integer)
    toy_only: Mapped[int] = mapped_column(Integer)
    inconclusive: Mapped[int] = mapped_column(Integer)
    unattempted: Mapped[int] = mapped_column(Integer)
    examined: Mapped[int] = mapped_column(Integer)


class OutcomeTally(Base):
    """How many current verdicts of a paper have an effective value and provenance."""

    __tablename__ = "outcome_tallies"

    paper_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    value: Mapped[str] = mapped_column(String(20), primary_key=True)
    provenance: Mapped[str] = mapped_column(String(30), primary_key=True)
    challenge_id: Mapped[int] = mapped_column(Integer, index=True)
    n: Mapped[int] = mapped_column(Integer)


class OutcomeVerdict(Base):
    """A current verdict with its effective value and group (the columns of ``eff``)."""

    __tablename__ = "outcome_verdicts"

    verdict_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    challenge_id: Mapped[int] = mapped_column(Integer, index=True)
    paper_id: Mapped[int] = mapped_column(Integer, index=True)
    claim_id: Mapped[int] = mapped_column(Integer, index=True)
    logbook_id: Mapped[int] = mapped_column(Integer, index=True)
    participant_id: Mapped[int] = mapped_column(Integer)
    grp: Mapped[str] = mapped_column(String(220))
    provenance: Mapped[str] = mapped_column(String(30))
    edited: Mapped[int] = mapped_column(Integer)
    value: Mapped[str] = mapped_column(String(20))
    # 1: a verified not counted only because its level is below min_provenance_verified
    below_minimum: Mapped[int] = mapped_column(Integer, server_default="0")


class OutcomeClaim(Base):
    """The consensus of an active claim (the columns of ``consensus``)."""

    __tablename__ = "outcome_claims"

    claim_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    challenge_id: Mapped[int] = mapped_column(Integer, index=True)
    paper_id: Mapped[int] = mapped_column(Integer, index=True)
    venue_id: Mapped[str] = mapped_column(String(300))
    key: Mapped[str] = mapped_column(String(50))
    consensus: Mapped[str] = mapped_column(String(20))
    logbooks: Mapped[int] = mapped_column(Integer)
    nv: Mapped[int] = mapped_column(Integer)
    nf: Mapped[int] = mapped_column(Integer)
    nt: Mapped[int] = mapped_column(Integer)
    ni: Mapped[int] = mapped_column(Integer)
    edited: Mapped[int] = mapped_column(Integer)
    # a verified claim: the strongest provenance level among the verified verdicts counted
    level: Mapped[str | None] = mapped_column(String(30), nullable=True)
    # any other: the strongest level of its verified verdicts below min_provenance_verified
    below_minimum: Mapped[str | None] = mapped_column(String(30), nullable=True)


class OutcomeTestimony(Base):
    """A current logbook whose testimony says an active claim of its paper is falsified."""

    __tablename__ = "outcome_testimony"

    logbook_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    claim_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    challenge_id: Mapped[int] = mapped_column(Integer, index=True)
    paper_id: Mapped[int] = mapped_column(Integer, index=True)


# (table, events, papers touched by row {row}: a condition on papers p)
_SOURCES: list[tuple[str, list[str], str]] = [
    ("verdicts", ["INSERT", "UPDATE", "DELETE"],
     "p.id IN (SELECT c.paper_id FROM claims c WHERE c.id = {row}.claim_id)"),
    ("verdict_edits", ["INSERT", "UPDATE", "DELETE"],
     "p.id IN (SELECT c.paper_id FROM verdicts v JOIN claims c ON c.id = v.claim_id"
     " WHERE v.id = {row}.verdict_id)"),
    ("logbooks", ["INSERT", "UPDATE OF paper_id, participant_id, manifest", "DELETE"],
     "p.id = {row}.paper_id"),
    ("claims", ["INSERT", "UPDATE OF paper_id, key, status", "DELETE"], "p.id = {row}.paper_id"),
    ("participants", ["UPDATE OF handle, team, team_confirmed"],
     "p.id IN (SELECT l.paper_id FROM logbooks l WHERE l.participant_id = {row}.id)"),
    ("papers", ["INSERT", "UPDATE OF venue_id, title, challenge_id"], "p.id = {row}.id"),
]  # fmt: skip

_MARK = """INSERT INTO outcome_marks (paper_id, challenge_id, mark)
        SELECT p.id, p.challenge_id, 1 FROM papers p WHERE {where} ORDER BY p.id
        ON CONFLICT (paper_id) DO UPDATE SET mark = outcome_marks.mark + 1"""
# a deleted paper is gone from papers by the time its trigger runs: mark it from its old row
_MARK_DELETED = """INSERT INTO outcome_marks (paper_id, challenge_id, mark)
        VALUES (OLD.id, OLD.challenge_id, 1)
        ON CONFLICT (paper_id) DO UPDATE SET mark = outcome_marks.mark + 1"""


def _rows(event: str) -> list[str]:
    kind = event.split()[0]
    return {"INSERT": ["NEW"], "UPDATE": ["OLD", "NEW"], "DELETE": ["OLD"]}[kind]


def _sqlite_ddl() -> list[str]:
    out = []
    for table, events, where in _SOURCES:
        for event in events:
            body = ";\n".join(_MARK.format(where=where.format(row=r)) for r in _rows(event))
            name = f"outcome_mark_{table}_{event.split()[0].lower()}"
            out.append(f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN\n{body};\nEND")
    out.append(f"CREATE TRIGGER outcome_mark_papers_delete AFTER DELETE ON papers BEGIN\n"
               f"{_MARK_DELETED};\nEND")  # fmt: skip
    return out


def _postgresql_ddl() -> list[str]:
    out = []
    for table, events, where in _SOURCES:
        new, old = (
            _MARK.format(where=where.format(row="NEW")),
            _MARK.format(where=where.format(row="OLD")),
        )
        deleted = _MARK_DELETED if table == "papers" else old
        out.append(
            f"""CREATE FUNCTION outcome_mark_{table}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP IN ('INSERT', 'UPDATE') THEN {new}; END IF;
        IF TG_OP = 'UPDATE' THEN {old}; END IF;
        IF TG_OP = 'DELETE' THEN {deleted}; END IF;
        RETURN NULL;
    END $$"""
        )
        on = " OR ".join(events + (["DELETE"] if table == "papers" else []))
        out.append(
            f"CREATE TRIGGER outcome_mark_{table} AFTER {on} ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION outcome_mark_{table}()"
        )
    return out


def create_outcome_marks(conn: Connection) -> None:
    """Create the triggers that mark papers whose outcome inputs change."""
    ddl = _sqlite_ddl() if conn.dialect.name == "sqlite" else _postgresql_ddl()
    for statement in ddl:
        conn.exec_driver_sql(statement)


def drop_outcome_marks(conn: Connection) -> None:
    """Drop what :func:`create_outcome_marks` created."""
    for table, events, _where in _SOURCES:
        if conn.dialect.name == "sqlite":
            for event in [*events, "DELETE"]:
                name = f"outcome_mark_{table}_{event.split()[0].lower()}"
                conn.execute(text(f"DROP TRIGGER IF EXISTS {name}"))
        else:
            conn.execute(text(f"DROP TRIGGER IF EXISTS outcome_mark_{table} ON {table}"))
            conn.execute(text(f"DROP FUNCTION IF EXISTS outcome_mark_{table}()"))
