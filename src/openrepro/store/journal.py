"""The store's change journal: which records that the board's pages show were written, in the
order their transactions committed (migration 0015).

Every session of :class:`~openrepro.store.Store` marks what it writes, whichever code writes
it: after each flush the rows it inserted, updated or deleted are turned into *tags* (below),
and at commit the tags go into ``change_journal``, one row each, in the same transaction. A new
writer (the judge's worker, an API route, a command) is covered without doing anything; a new
table is covered once :data:`MARKS` says which records its rows belong to (a table it does not
name marks only :data:`AGGREGATE`: challenge-wide figures). A reader keeps the last id it saw
and reads the rows after it (:func:`read_changes`, one query on the primary key).

Tags name records, not pages (which page shows which record is
:mod:`openrepro.board.catalogue`'s business):

- ``paper:<id>``: the paper, its claims and checks, their edits, verdicts and verdict edits,
  logbooks, proposals, re-check runs and decisions, author responses and messages, replays;
- ``logbook:<id>``: what only a logbook's page shows: its review tasks, reviewers, answers;
- ``participant:<id>``: the participant's own record and what only its page shows (its
  logbooks, jobs, ledger);
- ``name:<handle>``: how a participant is shown on other pages (its handle, team and whether
  the team is confirmed); a change of team also marks the papers it has logbooks on, whose
  consensus counts teams;
- :data:`AGGREGATE`: something only challenge-wide figures show; :data:`EVERYTHING`: a change
  that cannot be narrowed (the challenge itself, e.g. frozen; a bulk statement over a table).

Any row at all means the challenge-wide figures moved.

Order: ids are handed out in commit order, so a reader that saw id *n* has seen every change
committed before it. SQLite runs one writer at a time; on PostgreSQL the rows are written last
in the transaction, under a transaction-level advisory lock released by the commit, so a
transaction that started writing its rows after another committed gets a higher id, and one
holding a lower id is always visible to a reader that sees a higher one.

Writes that bypass the ORM (plain SQL on a connection) are not marked; openrepro has none
outside migrations and the derived outcome tables (:mod:`openrepro.outcomes.derived`), whose
writes are not board records and are not marked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import DateTime, Integer, String, func, insert, inspect, select
from sqlalchemy.event import listen
from sqlalchemy.orm import Mapped, ORMExecuteState, Session, mapped_column, sessionmaker

from openrepro.store.models import (
    Base,
    Challenge,
    Claim,
    ClaimEdit,
    ClaimExtraction,
    Job,
    LLMCacheEntry,
    Logbook,
    Paper,
    Participant,
    Verdict,
    VerdictEdit,
    utcnow,
)
from openrepro.store.tables_checks import CheckProposal
from openrepro.store.tables_identity import Invite
from openrepro.store.tables_jobs import LedgerEntry
from openrepro.store.tables_organizer import (
    AuthorResponse,
    OutreachMessage,
    RecheckDecision,
    RecheckRun,
)
from openrepro.store.tables_provenance import Replay
from openrepro.store.tables_review import ReviewAnswerRow, ReviewerRow, ReviewTaskRow

__all__ = [
    "AGGREGATE",
    "EVERYTHING",
    "MARKS",
    "Change",
    "ChangeRow",
    "journal_head",
    "logbook_tag",
    "name_tag",
    "paper_tag",
    "participant_tag",
    "read_changes",
    "watch_sessions",
]

#: Something only challenge-wide figures show changed.
AGGREGATE = "aggregate"
#: A change that cannot be narrowed to records: every page may show it.
EVERYTHING = "everything"
#: Any number that fits PostgreSQL's bigint: the advisory lock that orders journal writers.
_LOCK = 0x6F70656E_72657072
_PENDING = "openrepro.journal"


def paper_tag(paper_id: int) -> str:
    return f"paper:{paper_id}"


def participant_tag(participant_id: int) -> str:
    return f"participant:{participant_id}"


def logbook_tag(logbook_id: int) -> str:
    return f"logbook:{logbook_id}"


def name_tag(handle: str) -> str:
    return f"name:{handle}"


class ChangeRow(Base):
    """One record (a tag) written by one committed transaction."""

    __tablename__ = "change_journal"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tag: Mapped[str] = mapped_column(String(320))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


@dataclass
class _Marks:
    """What one flush touches: tags, and ids still to be resolved to their papers."""

    tags: set[str] = field(default_factory=set)
    claims: set[int] = field(default_factory=set)
    logbooks: set[int] = field(default_factory=set)
    verdicts: set[int] = field(default_factory=set)
    tasks: set[int] = field(default_factory=set)
    teams: set[int] = field(default_factory=set)  # participants whose counting changed

    def paper(self, paper_id: int | None) -> None:
        if paper_id is not None:
            self.tags.add(paper_tag(paper_id))

    def participant(self, participant_id: int | None) -> None:
        if participant_id is not None:
            self.tags.add(participant_tag(participant_id))


Mark = Callable[[Any, _Marks, set[str]], object]
"""Marks one written row: the row, the flush's marks, and the columns that changed (empty for
an inserted or deleted row)."""

#: Participant columns shown on other pages as its name (handle, team) and counted by the
#: consensus (team, whether confirmed, whether its identity counts).
_NAME = {"handle", "team", "team_confirmed"}
_COUNTING = {"team", "team_confirmed", "status", "identity_source", "role"}
#: Participant columns no page shows.
_UNSHOWN = {"token_hash", "email"}


def _participant(row: Participant, marks: _Marks, changed: set[str]) -> None:
    if changed and changed <= _UNSHOWN:
        return
    marks.participant(row.id)
    if not changed or changed & _NAME:
        marks.tags.add(name_tag(row.handle))
        handles = inspect(row).attrs.handle.history.deleted or ()
        marks.tags.update(name_tag(h) for h in handles if h)
    if changed & _COUNTING:
        marks.teams.add(row.id)


def _job(row: Job, marks: _Marks, changed: set[str]) -> None:
    if row.participant_id is None:
        marks.tags.add(AGGREGATE)
    marks.participant(row.participant_id)


def _logbook(row: Logbook, marks: _Marks, changed: set[str]) -> None:
    marks.paper(row.paper_id)
    marks.participant(row.participant_id)


def _nothing(row: Any, marks: _Marks, changed: set[str]) -> None:
    return None


#: The judge queue's tables are not listed: their rows are written by bulk statements, which mark
#: only :data:`AGGREGATE` (the queue's figures); a check change that makes a paper's page say
#: "awaiting re-judging" marks the paper through its claim, in the transaction that queues it.
#: Which records the rows of each table belong to. Tables that are not board records (the LLM
#: cache, invites, the derived outcome tables, the journal itself) mark nothing.
MARKS: dict[type[Any], Mark] = {
    Challenge: lambda r, m, c: m.tags.add(EVERYTHING),
    Paper: lambda r, m, c: m.paper(r.id),
    Claim: lambda r, m, c: m.paper(r.paper_id),
    ClaimEdit: lambda r, m, c: m.claims.add(r.claim_id),
    ClaimExtraction: lambda r, m, c: m.paper(r.paper_id),
    Participant: _participant,
    Logbook: _logbook,
    Verdict: lambda r, m, c: m.claims.add(r.claim_id),
    VerdictEdit: lambda r, m, c: m.verdicts.add(r.verdict_id),
    Job: _job,
    LedgerEntry: lambda r, m, c: m.participant(r.participant_id),
    CheckProposal: lambda r, m, c: m.claims.add(r.claim_id),
    RecheckRun: lambda r, m, c: m.claims.add(r.claim_id),
    RecheckDecision: lambda r, m, c: m.claims.add(r.claim_id),
    OutreachMessage: lambda r, m, c: m.paper(r.paper_id),
    AuthorResponse: lambda r, m, c: m.paper(r.paper_id),
    Replay: lambda r, m, c: m.logbooks.add(r.logbook_id),
    ReviewTaskRow: lambda r, m, c: m.tags.add(logbook_tag(r.logbook_id)),
    ReviewerRow: lambda r, m, c: m.tasks.add(r.task_id),
    ReviewAnswerRow: lambda r, m, c: m.tasks.add(r.task_id),
    LLMCacheEntry: _nothing,
    Invite: _nothing,
    ChangeRow: _nothing,
}


def _unmarked(cls: type[Any]) -> bool:
    """Tables whose writes are not board records: the derived outcome tables (rebuilt from
    records, sometimes while a page is read) and those :data:`MARKS` maps to nothing."""
    return MARKS.get(cls) is _nothing or cls.__module__.endswith(".tables_outcomes")


def _changed(row: Any) -> set[str]:
    state = inspect(row)
    return {a.key for a in state.attrs if a.history.has_changes()}


def _resolve(session: Session, marks: _Marks) -> set[str]:
    """The tags of ``marks`` with every id resolved to its paper (one query per kind); an id
    whose row is gone (deleted in the same flush) cannot be narrowed."""
    conn = session.connection()
    tags = set(marks.tags)

    def papers(rows: Iterable[Any], wanted: set[int]) -> None:
        found = {int(i): p for i, p in rows}
        tags.update(paper_tag(int(p)) for p in found.values())
        if wanted - set(found):
            tags.add(EVERYTHING)

    if marks.tasks:  # a review panel is shown on its logbook's page only
        rows = conn.execute(select(ReviewTaskRow.id, ReviewTaskRow.logbook_id)
                            .where(ReviewTaskRow.id.in_(marks.tasks))).all()  # fmt: skip
        tags.update(logbook_tag(int(b)) for _, b in rows)
        if len(rows) < len(marks.tasks):
            tags.add(EVERYTHING)
    if marks.verdicts:
        rows = conn.execute(select(Verdict.id, Verdict.claim_id)
                            .where(Verdict.id.in_(marks.verdicts))).all()  # fmt: skip
        marks.claims |= {int(c) for _, c in rows}
        if len(rows) < len(marks.verdicts):
            tags.add(EVERYTHING)
    if marks.claims:
        papers(conn.execute(select(Claim.id, Claim.paper_id)
                            .where(Claim.id.in_(marks.claims))), marks.claims)  # fmt: skip
    if marks.logbooks:
        papers(conn.execute(select(Logbook.id, Logbook.paper_id)
                            .where(Logbook.id.in_(marks.logbooks))), marks.logbooks)  # fmt: skip
    if marks.teams:  # the consensus of the papers they have logbooks on counts teams
        tags.update(paper_tag(int(p)) for p in conn.scalars(
            select(Logbook.paper_id).where(Logbook.participant_id.in_(marks.teams)).distinct()
        ))  # fmt: skip
    return tags


def _after_flush(session: Session, _context: Any) -> None:
    marks = _Marks()
    rows = [(row, set[str]()) for row in [*session.new, *session.deleted]]
    rows += [(row, _changed(row)) for row in session.dirty]
    for row, changed in rows:
        if (row in session.dirty and not changed) or _unmarked(type(row)):
            continue  # nothing written, or not a board record
        mark = MARKS.get(type(row))
        if mark is None:
            marks.tags.add(AGGREGATE)
        else:
            mark(row, marks, changed)
    if marks.tags or marks.claims or marks.logbooks or marks.verdicts or marks.tasks:
        session.info.setdefault(_PENDING, set()).update(_resolve(session, marks))


def _bulk_statement(state: ORMExecuteState) -> None:
    """An INSERT, UPDATE or DELETE statement over a table (not one row of the unit of work):
    its rows are not known, so over a table of board records it cannot be narrowed; over a
    table :data:`MARKS` does not name it marks :data:`AGGREGATE`, as its rows would."""
    if not (state.is_insert or state.is_update or state.is_delete):
        return
    mapper = state.bind_mapper
    if mapper is None or _unmarked(mapper.class_):
        return
    tag = EVERYTHING if mapper.class_ in MARKS else AGGREGATE
    state.session.info.setdefault(_PENDING, set()).add(tag)


def _before_commit(session: Session) -> None:
    """Write the transaction's marks, last, in commit order (see the module docstring)."""
    if session.new or session.dirty or session.deleted:
        session.flush()  # the commit's own flush, early: its marks are part of this commit
    tags = session.info.pop(_PENDING, None)
    if not tags:
        return
    conn = session.connection()
    if conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_advisory_xact_lock(_LOCK)))
    now = utcnow()
    conn.execute(insert(ChangeRow), [{"tag": tag, "at": now} for tag in sorted(tags)])


def _after_rollback(session: Session) -> None:
    session.info.pop(_PENDING, None)


def watch_sessions(sessions: sessionmaker[Session]) -> None:
    """Mark in the journal what every session made by ``sessions`` writes."""
    listen(sessions, "after_flush", _after_flush)
    listen(sessions, "do_orm_execute", _bulk_statement)
    listen(sessions, "before_commit", _before_commit)
    listen(sessions, "after_rollback", _after_rollback)


@dataclass
class Change:
    """What the journal holds after some id: its newest id, and the tags written since."""

    head: int
    tags: set[str] = field(default_factory=set)

    @property
    def moved(self) -> bool:
        return bool(self.tags)

    @property
    def everything(self) -> bool:
        return EVERYTHING in self.tags


def journal_head(session: Session) -> int:
    """The journal's newest id (0 when empty)."""
    return int(session.scalar(select(func.max(ChangeRow.id))) or 0)


def read_changes(session: Session, after: int | None) -> Change:
    """The tags committed after id ``after`` (None: none yet read, only the head is returned,
    with :data:`EVERYTHING`)."""
    if after is None:
        return Change(journal_head(session), {EVERYTHING})
    rows = session.execute(
        select(ChangeRow.id, ChangeRow.tag).where(ChangeRow.id > after).order_by(ChangeRow.id)
    ).all()
    return Change(max((int(i) for i, _ in rows), default=after), {str(t) for _, t in rows})
