"""Derived outcome tables: the current verdicts and consensus, kept per paper, read by stats.

The full current-verdict query (:mod:`openrepro.outcomes.current`) and consensus
(:mod:`openrepro.outcomes.consensus`) recompute every verdict on each call; at event scale that
is most of a second. The store keeps their results per paper instead (migration 0009,
:mod:`openrepro.store.tables_outcomes`): ``outcome_logbooks`` (current logbooks),
``outcome_verdicts`` (the rows of ``eff``), ``outcome_claims`` (the rows of ``consensus``) and
``outcome_testimony`` (current logbooks whose prose says a claim is falsified, read as the judge
reads testimony, :func:`openrepro.evidence.testimony.stance_of`).

Invariant: for every paper whose mark is its built mark, of a challenge whose state holds the
challenge's current provenance levels, the derived rows with that paper id are exactly what the
full query restricted to that paper returns, not hidden (:func:`current_query` with ``where``
on the paper, :data:`CONSENSUS_SQL` over it).

Why it holds:

* Every input of the full query lives in a store table (verdicts, verdict edits, logbooks,
  claims, participants' teams, papers), and a trigger on each bumps ``outcome_marks`` for each
  paper a changed row touches, in the writer's own transaction: judge writes, overrides,
  re-check decisions, team confirmation, claim edits, new revisions and raw SQL alike. No writer
  calls this module.
* :func:`refresh` takes the challenge's ``outcome_state`` row first (a write: refreshes queue
  behind each other), reads the stale papers with their marks, rebuilds each from the full query
  and records the marks it read as built. A write committed after the marks were read bumps the
  mark again, so its paper stays stale; writers never wait for a refresh, because a refresh
  writes ``outcome_built`` and writers write ``outcome_marks``.
* The provenance levels are a setting, not a row: the state records the levels the rows were
  built with, and other levels rebuild every paper.
* Hiding is a time window, not a row: readers leave hidden papers out (:func:`current_rows`,
  :func:`consensus_rows`) the way the full query does (their claims read as unattempted).

Readers call :func:`ensure_fresh` before reading; a write committed between the two is counted
at the next read. :func:`rebuild` (``openrepro stats --rebuild``) forgets what was built and
builds everything again, for safety.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    CTE,
    ColumnElement,
    case,
    delete,
    func,
    insert,
    literal,
    null,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.errors import StoreError
from openrepro.evidence.testimony import stance_of
from openrepro.logbooks.records import Testimony
from openrepro.logbooks.revisions import latest_logbook_select
from openrepro.outcomes.consensus import CONSENSUS_SQL, OUTCOMES_SQL, agrees
from openrepro.outcomes.current import (
    CurrentRows,
    accepted_levels,
    current_query,
    open_registration,
    statement,
)
from openrepro.store import Claim, Logbook, Paper
from openrepro.store.tables_outcomes import (
    OutcomeBuilt,
    OutcomeClaim,
    OutcomeLogbook,
    OutcomeMark,
    OutcomePaper,
    OutcomeState,
    OutcomeTally,
    OutcomeTestimony,
    OutcomeVerdict,
)

__all__ = [
    "ConsensusRows",
    "consensus_rows",
    "current_rows",
    "ensure_fresh",
    "is_fresh",
    "rebuild",
    "refresh",
    "stale_papers",
]

_DERIVED = (OutcomeLogbook, OutcomeVerdict, OutcomeClaim, OutcomePaper, OutcomeTally,
            OutcomeTestimony)  # fmt: skip
_CHUNK = 1000  # papers per rebuilding statement

#: the columns of ``eff`` (:class:`~openrepro.outcomes.current.CurrentRows`) as the derived
#: table holds them, for the consensus statement's text
_EFF_COLUMNS = ", ".join(c.name for c in OutcomeVerdict.__table__.c if c.name != "challenge_id")
_CLAIM_COLUMNS = (
    "claim_id, paper_id, venue_id, key, consensus, logbooks, nv, nf, nt, ni, edited, level,"
    " below_minimum"
)


def _accepted(ctx: ChallengeContext) -> str:
    """What the derived rows were counted under: the accepted levels and, under ``open``
    registration, that unvouched participants do not count (a change rebuilds every paper)."""
    levels = ",".join(accepted_levels(ctx.settings.min_provenance_verified))
    return levels + ("|open" if open_registration(ctx) else "")


def stale_papers(session: Session, ctx: ChallengeContext) -> list[tuple[int, int]]:
    """(paper id, mark) of the challenge's papers changed since their rows were built."""
    rows = session.execute(
        select(OutcomeMark.paper_id, OutcomeMark.mark)
        .outerjoin(OutcomeBuilt, OutcomeBuilt.paper_id == OutcomeMark.paper_id)
        .where(OutcomeMark.challenge_id == ctx.challenge_id)
        .where((OutcomeBuilt.mark.is_(None)) | (OutcomeBuilt.mark != OutcomeMark.mark))
        .order_by(OutcomeMark.paper_id)
    ).all()
    return [(int(p), int(m)) for p, m in rows]


def is_fresh(session: Session, ctx: ChallengeContext) -> bool:
    """Whether the derived rows of the challenge hold (see the module docstring)."""
    accepted = session.scalar(
        select(OutcomeState.accepted).where(OutcomeState.challenge_id == ctx.challenge_id)
    )
    if accepted != _accepted(ctx):
        return False
    stale = (
        select(OutcomeMark.paper_id)
        .outerjoin(OutcomeBuilt, OutcomeBuilt.paper_id == OutcomeMark.paper_id)
        .where(OutcomeMark.challenge_id == ctx.challenge_id)
        .where((OutcomeBuilt.mark.is_(None)) | (OutcomeBuilt.mark != OutcomeMark.mark))
        .limit(1)
    )
    return session.execute(stale).first() is None


def ensure_fresh(ctx: ChallengeContext, tries: int = 3) -> None:
    """Refresh until the derived rows hold (at most ``tries`` refreshes; writers that keep
    changing papers meanwhile are counted at the next read)."""
    for _ in range(tries):
        with ctx.store.session() as session:
            if is_fresh(session, ctx):
                return
        refresh(ctx)


def _lock_state(session: Session, ctx: ChallengeContext) -> str | None:
    """Take the challenge's state row (created when missing); its recorded levels ("" when
    never built). Two first refreshes at once (two threads of a board on PostgreSQL) both find
    no row: each inserts it unless it exists (the second waits for the first's transaction,
    then inserts nothing), and both then take it with the update, one after the other."""
    for _ in range(2):
        taken = session.execute(
            update(OutcomeState)
            .where(OutcomeState.challenge_id == ctx.challenge_id)
            .values(refreshes=OutcomeState.refreshes + 1)
        )
        if taken.rowcount:  # type: ignore[attr-defined]
            return session.scalar(
                select(OutcomeState.accepted).where(OutcomeState.challenge_id == ctx.challenge_id)
            )
        dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
        session.execute(
            dialect.insert(OutcomeState)
            .values(challenge_id=ctx.challenge_id, accepted="", refreshes=0)
            .on_conflict_do_nothing(index_elements=["challenge_id"])
        )
    raise StoreError("the derived outcome tables' state row could not be taken")


def refresh(ctx: ChallengeContext) -> int:
    """Rebuild the derived rows of every stale paper (all of them when the provenance levels
    changed) in one transaction; the number of papers rebuilt."""
    accepted = _accepted(ctx)
    with ctx.store.session() as session:
        recorded = _lock_state(session, ctx)
        if recorded != accepted:  # new levels, or never built: every paper
            for table in _DERIVED:
                session.execute(delete(table).where(table.challenge_id == ctx.challenge_id))
            marks = {
                int(p): int(m)
                for p, m in session.execute(
                    select(OutcomeMark.paper_id, OutcomeMark.mark).where(
                        OutcomeMark.challenge_id == ctx.challenge_id
                    )
                )
            }
            papers = session.scalars(select(Paper.id).where(Paper.challenge_id == ctx.challenge_id))
            stale = [(p, marks.get(p, 0)) for p in sorted(set(papers) | set(marks))]
            session.execute(
                update(OutcomeState)
                .where(OutcomeState.challenge_id == ctx.challenge_id)
                .values(accepted=accepted)
            )
        else:
            stale = stale_papers(session, ctx)
        for start in range(0, len(stale), _CHUNK):
            _build(session, ctx, stale[start : start + _CHUNK])
    return len(stale)


def rebuild(ctx: ChallengeContext) -> int:
    """Forget what was built and build every paper of the challenge again."""
    with ctx.store.session() as session:
        _lock_state(session, ctx)
        session.execute(
            update(OutcomeState)
            .where(OutcomeState.challenge_id == ctx.challenge_id)
            .values(accepted="")
        )
    return refresh(ctx)


def _build(session: Session, ctx: ChallengeContext, stale: Sequence[tuple[int, int]]) -> None:
    """Replace the derived rows of these papers by the full query's, record their marks."""
    papers = [p for p, _ in stale]
    if len(papers) >= 100 and session.get_bind().dialect.name == "postgresql":
        # PostgreSQL plans over tables filled in this very transaction (or freshly bulk-loaded)
        # from stale statistics and picks nested loops that go quadratic over many papers;
        # rebuilding many papers is a bulk job, which hash joins suit (this transaction only)
        session.execute(text("SET LOCAL enable_nestloop = off"))
    for table in _DERIVED:
        session.execute(delete(table).where(table.paper_id.in_(papers)))
    restrict = "AND p.id IN :papers"
    params: dict[str, Any] = {"challenge": ctx.challenge_id, "papers": papers}
    cur = current_query(
        ctx.challenge_id,
        accepted=accepted_levels(ctx.settings.min_provenance_verified),
        open_registration=bool(open_registration(ctx)),
        where=[Paper.id.in_(papers)],
    )
    session.execute(
        insert(OutcomeVerdict).from_select(
            ["challenge_id", *(c.name for c in cur.columns)],
            select(literal(ctx.challenge_id), *cur.columns),
        )
    )
    eff = f"eff AS (SELECT {_EFF_COLUMNS} FROM outcome_verdicts WHERE paper_id IN :papers)"
    session.execute(
        statement(
            f"INSERT INTO outcome_claims (challenge_id, {_CLAIM_COLUMNS}) WITH {eff},"
            + CONSENSUS_SQL.format(paper_filter=restrict)
            + f" SELECT :challenge, {_CLAIM_COLUMNS} FROM consensus"
        ),
        params,
    )
    e, k = OutcomeVerdict.__table__.alias("e"), OutcomeClaim.__table__.alias("k")

    def credit(value: str) -> Any:  # current verdicts that agree with the consensus on `value`
        agreeing = agrees(e.c.value, k.c.consensus, e.c.provenance, value)
        return func.coalesce(func.sum(case((agreeing, 1), else_=0)), 0)

    latest = latest_logbook_select(ctx.challenge_id, Paper.id.in_(papers)).cte("latest_logbook")
    session.execute(
        insert(OutcomeLogbook).from_select(
            ["logbook_id", "challenge_id", "paper_id", "participant_id", "verdicts",
             "credit_verified", "credit_falsified"],
            select(Logbook.id, literal(ctx.challenge_id), Logbook.paper_id,
                   Logbook.participant_id, func.count(e.c.verdict_id), credit("verified"),
                   credit("falsified"))
            .outerjoin(e, e.c.logbook_id == Logbook.id)
            .outerjoin(k, k.c.claim_id == e.c.claim_id)
            .where(Logbook.id.in_(select(latest.c.id)))
            .group_by(Logbook.id, Logbook.paper_id, Logbook.participant_id),
        )
    )  # fmt: skip
    session.execute(
        statement(
            "INSERT INTO outcome_papers (paper_id, venue_id, title, claims, logbooks, verified,"
            " falsified, contested, toy_only, inconclusive, unattempted, examined, challenge_id)"
            f" WITH {eff}, latest_logbook AS (SELECT logbook_id AS id FROM outcome_logbooks"
            " WHERE paper_id IN :papers),"
            f" consensus AS (SELECT {_CLAIM_COLUMNS} FROM outcome_claims"
            " WHERE paper_id IN :papers),"
            + OUTCOMES_SQL.format(paper_filter=restrict, extra_columns=", :challenge", order="")
        ),
        params,
    )
    v = OutcomeVerdict
    session.execute(
        insert(OutcomeTally).from_select(
            ["paper_id", "value", "provenance", "challenge_id", "n"],
            select(v.paper_id, v.value, v.provenance, literal(ctx.challenge_id), func.count())
            .where(v.paper_id.in_(papers))
            .group_by(v.paper_id, v.value, v.provenance),
        )
    )
    _build_testimony(session, ctx, papers)
    session.execute(delete(OutcomeBuilt).where(OutcomeBuilt.paper_id.in_(papers)))
    session.execute(insert(OutcomeBuilt), [{"paper_id": p, "mark": m} for p, m in stale])


def _build_testimony(session: Session, ctx: ChallengeContext, papers: list[int]) -> None:
    claims: dict[int, list[tuple[int, str, str]]] = {}
    for claim_id, paper_id, venue_id, key in session.execute(
        select(Claim.id, Claim.paper_id, Paper.venue_id, Claim.key)
        .join(Paper, Paper.id == Claim.paper_id)
        .where(Claim.paper_id.in_(papers), Claim.status == "active")
        .order_by(Claim.id)
    ):
        claims.setdefault(paper_id, []).append((claim_id, f"{venue_id}/{key}", key))
    rows: list[dict[str, int]] = []
    for book_id, paper_id, raw in session.execute(
        select(OutcomeLogbook.logbook_id, OutcomeLogbook.paper_id, Logbook.manifest["testimony"])
        .join(Logbook, Logbook.id == OutcomeLogbook.logbook_id)
        .where(OutcomeLogbook.paper_id.in_(papers))
        .order_by(OutcomeLogbook.logbook_id)
    ):
        if not raw or paper_id not in claims:
            continue
        items = raw if isinstance(raw, list) else json.loads(raw)
        testimony = [Testimony.model_validate(t) for t in items]
        for claim_id, name, key in claims[paper_id]:
            if stance_of(testimony, name, key) == "negative":
                rows.append({"logbook_id": book_id, "claim_id": claim_id, "paper_id": paper_id,
                             "challenge_id": ctx.challenge_id})  # fmt: skip
    if rows:
        session.execute(insert(OutcomeTestimony), rows)


def _shown(column: Any, hidden: Sequence[int]) -> list[ColumnElement[bool]]:
    return [column.not_in(list(hidden))] if hidden else []


def current_rows(
    ctx: ChallengeContext, hidden: Sequence[int] = (), papers: Sequence[int] | None = None
) -> CurrentRows:
    """The current verdicts (``eff``) and logbooks (``latest_logbook``) as the derived tables
    hold them (call :func:`ensure_fresh` first): the columns of the full query's, papers
    ``hidden`` left out, only ``papers`` when given."""
    v, b = OutcomeVerdict, OutcomeLogbook
    only_v = [v.paper_id.in_(list(papers))] if papers is not None else []
    only_b = [b.paper_id.in_(list(papers))] if papers is not None else []
    eff = (
        select(v.verdict_id, v.claim_id, v.logbook_id, v.paper_id, v.participant_id, v.grp,
               v.provenance, v.edited, v.value, v.below_minimum)
        .where(v.challenge_id == ctx.challenge_id, *_shown(v.paper_id, hidden), *only_v)
        .cte("eff")
    )  # fmt: skip
    latest = (
        select(b.logbook_id.label("id"))
        .where(b.challenge_id == ctx.challenge_id, *_shown(b.paper_id, hidden), *only_b)
        .cte("latest_logbook")
    )
    return CurrentRows(latest_logbook=latest, eff=eff)


@dataclass(frozen=True)
class ConsensusRows:
    """Claim consensus (:data:`~openrepro.outcomes.consensus.CONSENSUS_SQL`'s ``consensus``) as
    a SQLAlchemy Core common table expression, one row per active claim; read its columns
    through the attributes below (a rename fails the type check where it is read)."""

    consensus: CTE

    @property
    def claim_id(self) -> ColumnElement[int]:
        return self.consensus.c.claim_id

    @property
    def paper_id(self) -> ColumnElement[int]:
        return self.consensus.c.paper_id

    @property
    def venue_id(self) -> ColumnElement[str]:
        return self.consensus.c.venue_id

    @property
    def key(self) -> ColumnElement[str]:
        return self.consensus.c.key

    @property
    def value(self) -> ColumnElement[str]:
        """The consensus value (``verified``, ..., ``unattempted``)."""
        return self.consensus.c.consensus

    @property
    def logbooks(self) -> ColumnElement[int]:
        return self.consensus.c.logbooks

    @property
    def verified(self) -> ColumnElement[int]:
        """Independent groups that verified it (``nv``)."""
        return self.consensus.c.nv

    @property
    def falsified(self) -> ColumnElement[int]:
        """Independent groups that falsified it (``nf``)."""
        return self.consensus.c.nf

    @property
    def toy(self) -> ColumnElement[int]:
        return self.consensus.c.nt

    @property
    def inconclusive(self) -> ColumnElement[int]:
        return self.consensus.c.ni

    @property
    def edited(self) -> ColumnElement[int]:
        return self.consensus.c.edited

    @property
    def level(self) -> ColumnElement[str | None]:
        return self.consensus.c.level

    @property
    def below_minimum(self) -> ColumnElement[str | None]:
        return self.consensus.c.below_minimum


def consensus_rows(
    ctx: ChallengeContext, hidden: Sequence[int] = (), papers: Sequence[int] | None = None
) -> ConsensusRows:
    """Claim consensus as the derived tables hold it (call :func:`ensure_fresh` first), only
    ``papers`` when given; the claims of papers ``hidden`` read as unattempted (no logbooks,
    no counts, no level), as in the full query."""
    k = OutcomeClaim

    def shown(column: Any, empty: Any) -> Any:
        if not hidden:
            return column
        return case((k.paper_id.in_(list(hidden)), empty), else_=column).label(column.key)

    only = [k.paper_id.in_(list(papers))] if papers is not None else []
    consensus = (
        select(k.claim_id, k.paper_id, k.venue_id, k.key,
               shown(k.consensus, literal("unattempted")),
               *(shown(c, literal(0)) for c in (k.logbooks, k.nv, k.nf, k.nt, k.ni, k.edited)),
               shown(k.level, null()), shown(k.below_minimum, null()))
        .where(k.challenge_id == ctx.challenge_id, *only)
        .cte("consensus")
    )  # fmt: skip
    return ConsensusRows(consensus=consensus)
