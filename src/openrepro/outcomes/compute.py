"""Claim consensus and paper outcomes, computed in SQL (one statement each, any store).

Which verdicts count is :mod:`openrepro.outcomes.current` (the current verdicts, ``eff``);
consensus is :mod:`openrepro.outcomes.consensus`. Statements read them from the derived tables
(:mod:`openrepro.outcomes.derived`, refreshed first); ``reference=True`` computes them from the
base tables instead, with the full query: the definition the derived tables are checked against
(tests, ``bench/outcomes_scale.py``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import Column, Integer, MetaData, Table, insert, select, text
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.errors import NotFoundError
from openrepro.outcomes import derived
from openrepro.outcomes.consensus import BY_PAPER, CONSENSUS_SQL, LEVELS_SQL, OUTCOMES_SQL
from openrepro.outcomes.current import (
    accepted_levels,
    current_query,
    hidden_papers,
    open_registration,
    query_params,
    statement,
)
from openrepro.outcomes.records import ClaimConsensus, PaperOutcome, level_counts
from openrepro.store import Paper
from openrepro.store.tables_outcomes import OutcomeVerdict

__all__ = [
    "claim_consensus",
    "consensus_values",
    "group_levels",
    "level_rows",
    "paper_outcomes",
    "run_many",
    "run_sql",
]


def run_sql(
    session: Session, ctx: ChallengeContext, tail: str, public: bool,
    paper_ids: Sequence[int] | None, *, reference: bool = False,
) -> list[Any]:  # fmt: skip
    """``tail`` (a ``SELECT``, or more expressions after a comma) over ``latest_logbook``,
    ``eff`` and ``consensus``; ``{paper_filter}`` in it restricts papers ``p``. From the derived
    tables (call :func:`derived.ensure_fresh` first), or with ``reference`` the full query."""
    paper_filter = "AND p.id IN :papers" if paper_ids is not None else ""
    if reference:
        return _reference(session, ctx, [tail.format(paper_filter=paper_filter)], public,
                          paper_ids)[0]  # fmt: skip
    hidden = hidden_papers(ctx) if public else []
    derived_filter = "AND paper_id IN :papers" if paper_ids is not None else ""
    head = derived.derived_sql(bool(hidden), derived_filter)
    stmt = statement("WITH " + head + tail.format(paper_filter=paper_filter))
    return list(session.execute(stmt, query_params(ctx, hidden, paper_ids)).all())


def _split_ctes(sql: str) -> list[tuple[str, str]]:
    """``name AS (body), ...`` -> [(name, body)], splitting at top-level parentheses."""
    out: list[tuple[str, str]] = []
    i = 0
    while True:
        match = re.compile(r"\s*,?\s*(\w+)\s+AS\s*\(", re.S).match(sql, i)
        if match is None:
            return out
        depth, j = 1, match.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(sql[j], 0)
            j += 1
        out.append((match.group(1), sql[match.end() : j - 1]))
        i = j


def run_many(
    session: Session, ctx: ChallengeContext, tails: Sequence[str], public: bool,
    *, reference: bool = False,
) -> list[list[Any]]:  # fmt: skip
    """Several statements over the same current verdicts and consensus: from the derived tables
    (call :func:`derived.ensure_fresh` first), each tail reads them directly; with
    ``reference``, from the full query (:func:`_reference`)."""
    if not reference:
        return [run_sql(session, ctx, tail, public, None) for tail in tails]
    return _reference(session, ctx, tails, public, None)


def _reference(
    session: Session, ctx: ChallengeContext, tails: Sequence[str], public: bool,
    paper_ids: Sequence[int] | None,
) -> list[list[Any]]:  # fmt: skip
    """``tails`` over the full query: every step (the latest logbooks and the current verdicts
    of :func:`current_query`, then each step of consensus) is materialised in turn into a
    temporary table of this connection, then each tail reads them."""
    hidden = hidden_papers(ctx) if public else []
    where = [Paper.id.in_(list(paper_ids))] if paper_ids is not None else []
    cur = current_query(
        ctx.challenge_id,
        accepted=accepted_levels(ctx.settings.min_provenance_verified),
        open_registration=bool(open_registration(ctx)),
        hidden=hidden,
        where=where,
    )
    paper_filter = "AND p.id IN :papers" if paper_ids is not None else ""
    params = query_params(ctx, [], paper_ids)
    bind = session.connection()
    metadata = MetaData()
    types = OutcomeVerdict.__table__.c
    latest = Table("or_latest_logbook", metadata, Column("id", Integer), prefixes=["TEMPORARY"])
    eff = Table("or_eff", metadata, *(Column(c.name, types[c.name].type) for c in cur.columns),
                prefixes=["TEMPORARY"])  # fmt: skip
    done: list[str] = []

    def prefix() -> str:
        return (
            ("WITH " + ", ".join(f"{n} AS (SELECT * FROM or_{n})" for n in done) + " ")
            if done
            else ""
        )

    try:
        latest.create(bind)
        done.append("latest_logbook")
        bind.execute(insert(latest).from_select(["id"], select(cur.latest_logbook.c.id)))
        eff.create(bind)
        done.append("eff")
        bind.execute(insert(eff).from_select([c.name for c in cur.columns], select(*cur.columns)))
        for name, body in _split_ctes(CONSENSUS_SQL.format(paper_filter=paper_filter)):
            bind.execute(statement(f"CREATE TEMPORARY TABLE or_{name} AS {prefix()}{body}"),
                         {k: v for k, v in params.items() if f":{k}" in body})  # fmt: skip
            done.append(name)
        head = prefix().rstrip()
        out = []
        for tail in tails:
            sql = head + tail
            args = {k: v for k, v in params.items() if f":{k}" in sql}
            out.append(list(bind.execute(statement(sql), args).all()))
        return out
    finally:
        for name in done:
            bind.execute(text(f"DROP TABLE IF EXISTS or_{name}"))


def _read(
    ctx: ChallengeContext, tail: str, public: bool, paper_ids: Sequence[int] | None,
    reference: bool,
) -> list[Any]:  # fmt: skip
    if not reference:
        derived.ensure_fresh(ctx)
    with ctx.store.session() as session:
        return run_sql(session, ctx, tail, public, paper_ids, reference=reference)


def verdicts_by_day(
    ctx: ChallengeContext, *, public: bool = False, reference: bool = False
) -> list[tuple[date, dict[str, int]]]:
    """Current verdicts per day they were given and per effective value, oldest day first.
    ``reference``: from the full query rather than the derived tables (same answer)."""
    tail = " SELECT v.created_at, eff.value FROM eff JOIN verdicts v ON v.id = eff.verdict_id"
    counts: dict[date, Counter[str]] = {}
    for created, value in _read(ctx, tail, public, None, reference):
        if isinstance(created, str):
            created = datetime.fromisoformat(created)
        counts.setdefault(created.date(), Counter())[value] += 1
    return [(day, dict(counts[day])) for day in sorted(counts)]


def claim_consensus(
    ctx: ChallengeContext, *, paper_ids: Sequence[int] | None = None, public: bool = False,
    reference: bool = False,
) -> list[ClaimConsensus]:  # fmt: skip
    """Consensus of every active claim (of the given papers), ordered by paper then claim.
    ``reference``: from the full query rather than the derived tables (same answer)."""
    tail = """
    SELECT claim_id, paper_id, venue_id, key, consensus, logbooks, nv, nf, nt, ni, edited,
           level, below_minimum
    FROM consensus ORDER BY paper_id, claim_id"""
    rows = _read(ctx, tail, public, paper_ids, reference)
    return [
        ClaimConsensus(
            claim_id=r[0], paper_id=r[1], paper=r[2], key=r[3], consensus=r[4],
            logbooks=int(r[5]), verified=int(r[6]), falsified=int(r[7]), toy=int(r[8]),
            inconclusive=int(r[9]), overridden=int(r[10]), level=r[11], below_minimum=r[12],
        )
        for r in rows
    ]  # fmt: skip


def consensus_values(
    ctx: ChallengeContext, *, public: bool = False, reference: bool = False
) -> list[tuple[int, str, int, int]]:
    """(claim id, consensus, verified, falsified) of every active claim: the consensus alone,
    without building a record per claim (for callers that only look a few of them up)."""
    tail = " SELECT claim_id, consensus, nv, nf FROM consensus ORDER BY paper_id, claim_id"
    rows = _read(ctx, tail, public, None, reference)
    return [(int(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows]


def paper_outcomes(
    ctx: ChallengeContext, *, paper_ids: Sequence[int] | None = None, public: bool = False,
    reference: bool = False, venue_ids: Sequence[str] | None = None,
) -> list[PaperOutcome]:  # fmt: skip
    """One row per paper of the venue (attempted or not) with its outcome flags and its
    verified claims per provenance level; only ``paper_ids`` (store ids) or ``venue_ids``
    (an unknown venue id is a :class:`~openrepro.errors.NotFoundError`) when given."""
    if venue_ids is not None:
        with ctx.store.session() as session:
            found = dict(
                session.execute(
                    select(Paper.venue_id, Paper.id).where(
                        Paper.challenge_id == ctx.challenge_id, Paper.venue_id.in_(venue_ids)
                    )
                ).all()
            )
        missing = [v for v in venue_ids if v not in found]
        if missing:
            raise NotFoundError(f"no paper with id {', '.join(map(repr, missing))}")
        paper_ids = [*(paper_ids or []), *(found[v] for v in venue_ids)]
    if reference:
        outcomes = OUTCOMES_SQL.format(
            paper_filter="{paper_filter}", extra_columns="", order=BY_PAPER
        )
        rows = _read(ctx, "," + outcomes, public, paper_ids, reference)
    else:
        derived.ensure_fresh(ctx)
        hidden = hidden_papers(ctx) if public else []
        with ctx.store.session() as session:
            rows = list(
                session.execute(
                    statement(derived.paper_outcomes_sql(bool(hidden), paper_ids is not None)),
                    query_params(ctx, hidden, paper_ids),
                ).all()
            )
    levels = level_rows(ctx, paper_ids=paper_ids, public=public, reference=reference)
    out = [_outcome(r) for r in rows]
    for o in out:
        verified, below = levels.get(o.paper_id, ({}, {}))
        o.verified_levels, o.below_minimum = level_counts(verified), level_counts(below)
    return out


def level_rows(
    ctx: ChallengeContext, *, paper_ids: Sequence[int] | None = None, public: bool = False,
    reference: bool = False,
) -> dict[int, tuple[dict[str, int], dict[str, int]]]:  # fmt: skip
    """Per paper (of the given papers) with any: its verified claims per provenance level of
    their strongest counted evidence, and its claims not counted verified whose verified
    verdicts are all below ``min_provenance_verified``, per the strongest such level
    (:data:`LEVELS_SQL` over the consensus). ``reference``: from the full query."""
    return group_levels(_read(ctx, LEVELS_SQL, public, paper_ids, reference))


def group_levels(rows: Sequence[Any]) -> dict[int, tuple[dict[str, int], dict[str, int]]]:
    """The rows of :data:`LEVELS_SQL` (paper id, level, below_minimum, claims) per paper:
    (verified claims per level, claims verified only below the minimum per level). A claim has
    a ``level`` or a ``below_minimum``, never both, so each (paper, level) is one row."""
    out: dict[int, tuple[dict[str, int], dict[str, int]]] = {}
    for paper_id, level, below, n in rows:
        entry = out.get(paper_id)
        if entry is None:
            entry = out[paper_id] = ({}, {})
        if level is not None:
            entry[0][level] = int(n)
        else:
            entry[1][below] = int(n)
    return out


def _outcome(r: Any) -> PaperOutcome:
    claims, verified, falsified, contested = int(r[3]), int(r[5]), int(r[6]), int(r[7])
    toy, inconclusive, examined = int(r[8]), int(r[9]), bool(r[11])
    bad = falsified + contested
    out = PaperOutcome(
        paper_id=r[0], paper=r[1], title=r[2], claims=claims, logbooks=int(r[4]),
        verified=verified, falsified=falsified, contested=contested, toy_only=toy,
        inconclusive=inconclusive, unattempted=int(r[10]), examined=examined,
    )  # fmt: skip
    if not examined:
        return out
    out.any_verified = verified > 0
    out.fully_reproduced = claims > 0 and verified == claims
    out.partially_reproduced = verified > 0 and bad == 0 and not out.fully_reproduced
    out.mixed = verified > 0 and bad > 0
    out.falsified_any = bad > 0
    out.all_falsified = claims > 0 and falsified == claims
    out.contested_any = contested > 0
    out.toy_only_paper = toy > 0 and verified == 0 and bad == 0
    out.nothing_established = verified == 0 and bad == 0 and toy == 0
    return out
