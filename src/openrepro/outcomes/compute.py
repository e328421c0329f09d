"""Claim consensus and paper outcomes, computed in SQL (one statement each, any store).

Which verdicts count is :mod:`openrepro.outcomes.current` (the current verdicts, ``eff``);
consensus is :mod:`openrepro.outcomes.consensus`. Readers are SQLAlchemy Core selects over
:class:`Views` (the current verdicts and the consensus, columns read by attribute: renaming one
fails the type check where it is read), run over the derived tables
(:mod:`openrepro.outcomes.derived`, refreshed first) or, with ``reference=True``, over the full
query computed from the base tables: the definition the derived tables are checked against
(tests, ``bench/outcomes_scale.py``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, NamedTuple, TypeAlias

from sqlalchemy import (
    Column,
    ColumnElement,
    Integer,
    MetaData,
    Select,
    Table,
    case,
    func,
    insert,
    literal,
    or_,
    select,
    text,
)
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.errors import NotFoundError
from openrepro.outcomes import derived
from openrepro.outcomes.consensus import BY_PAPER, CONSENSUS_SQL, OUTCOMES_SQL
from openrepro.outcomes.current import (
    CurrentRows,
    accepted_levels,
    current_query,
    hidden_papers,
    open_registration,
    query_params,
    statement,
)
from openrepro.outcomes.derived import ConsensusRows
from openrepro.outcomes.records import ClaimConsensus, PaperOutcome, level_counts
from openrepro.store import Paper, Verdict
from openrepro.store.tables_outcomes import OutcomeClaim, OutcomePaper, OutcomeVerdict

__all__ = [
    "AnySelect",
    "ConsensusValue",
    "LevelCount",
    "PaperCounts",
    "Reader",
    "Views",
    "claim_consensus",
    "consensus_value_select",
    "consensus_values",
    "group_levels",
    "level_rows",
    "levels_reader",
    "paper_outcomes",
    "read",
    "run_many",
]


@dataclass(frozen=True)
class Views:
    """What readers select from: the current verdicts and logbooks (``current``) and the claim
    consensus (``consensus``), from the derived tables or the full query alike."""

    current: CurrentRows
    consensus: ConsensusRows


#: A select of any columns.
AnySelect: TypeAlias = Select[*tuple[Any, ...]]
#: A statement over :class:`Views`.
Reader = Callable[[Views], AnySelect]

#: The columns of ``consensus`` (:data:`~openrepro.outcomes.consensus.CONSENSUS_SQL`).
_CONSENSUS_COLUMNS = [c for c in OutcomeClaim.__table__.c if c.name != "challenge_id"]


def read(
    session: Session, ctx: ChallengeContext, reader: Reader, public: bool,
    paper_ids: Sequence[int] | None, *, reference: bool = False,
) -> list[Any]:  # fmt: skip
    """The rows of ``reader`` over the current verdicts and consensus (of the given papers),
    from the derived tables (call :func:`derived.ensure_fresh` first), or with ``reference`` the
    full query."""
    if reference:
        return _reference(session, ctx, [reader], public, paper_ids)[0]
    hidden = hidden_papers(ctx) if public else []
    views = Views(
        current=derived.current_rows(ctx, hidden, paper_ids),
        consensus=derived.consensus_rows(ctx, hidden, paper_ids),
    )
    return list(session.execute(reader(views)).all())


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
    session: Session, ctx: ChallengeContext, tails: Sequence[str | Reader], public: bool
) -> list[list[Any]]:
    """Several statements over the same current verdicts and consensus of the full query
    (:func:`_reference`): readers, or SQL ``tails`` (a ``SELECT``, or more expressions after a
    comma) over ``latest_logbook``, ``eff`` and ``consensus``."""
    return _reference(session, ctx, tails, public, None)


def _reference(
    session: Session, ctx: ChallengeContext, tails: Sequence[str | Reader], public: bool,
    paper_ids: Sequence[int] | None,
) -> list[list[Any]]:  # fmt: skip
    """``tails`` over the full query: every step (the latest logbooks and the current verdicts
    of :func:`current_query`, then each step of consensus) is materialised in turn into a
    temporary table of this connection, then each tail reads them: a reader through
    :class:`Views` of those tables, SQL text through common table expressions of the same
    names; ``{paper_filter}`` in the text restricts papers ``p``."""
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
    consensus = Table(
        "or_consensus", metadata, *(Column(c.name, c.type) for c in _CONSENSUS_COLUMNS)
    )
    views = Views(
        current=CurrentRows(latest_logbook=select(latest).cte("latest_logbook"),
                            eff=select(eff).cte("eff")),
        consensus=ConsensusRows(consensus=select(consensus).cte("consensus")),
    )  # fmt: skip
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
            if not isinstance(tail, str):
                out.append(list(bind.execute(tail(views)).all()))
                continue
            sql = head + tail.format(paper_filter=paper_filter)
            args = {k: v for k, v in params.items() if f":{k}" in sql}
            out.append(list(bind.execute(statement(sql), args).all()))
        return out
    finally:
        for name in done:
            bind.execute(text(f"DROP TABLE IF EXISTS or_{name}"))


def _read(
    ctx: ChallengeContext, reader: Reader, public: bool, paper_ids: Sequence[int] | None,
    reference: bool,
) -> list[Any]:  # fmt: skip
    if not reference:
        derived.ensure_fresh(ctx)
    with ctx.store.session() as session:
        return read(session, ctx, reader, public, paper_ids, reference=reference)


def verdicts_by_day(
    ctx: ChallengeContext, *, public: bool = False, reference: bool = False
) -> list[tuple[date, dict[str, int]]]:
    """Current verdicts per day they were given and per effective value, oldest day first.
    ``reference``: from the full query rather than the derived tables (same answer)."""

    def reader(v: Views) -> AnySelect:
        cur = v.current
        return (
            select(Verdict.created_at, cur.value)
            .select_from(cur.eff)
            .join(Verdict, Verdict.id == cur.verdict_id)
        )

    counts: dict[date, Counter[str]] = {}
    for row in _read(ctx, reader, public, None, reference):
        created = row.created_at
        if isinstance(created, str):
            created = datetime.fromisoformat(created)
        counts.setdefault(created.date(), Counter())[row.value] += 1
    return [(day, dict(counts[day])) for day in sorted(counts)]


def _consensus_reader(v: Views) -> AnySelect:
    k = v.consensus
    return select(
        k.claim_id, k.paper_id, k.venue_id, k.key, k.value.label("value"), k.logbooks,
        k.verified.label("verified"), k.falsified.label("falsified"), k.toy.label("toy"),
        k.inconclusive.label("inconclusive"), k.edited, k.level, k.below_minimum,
    ).order_by(k.paper_id, k.claim_id)  # fmt: skip


def claim_consensus(
    ctx: ChallengeContext, *, paper_ids: Sequence[int] | None = None, public: bool = False,
    reference: bool = False,
) -> list[ClaimConsensus]:  # fmt: skip
    """Consensus of every active claim (of the given papers), ordered by paper then claim.
    ``reference``: from the full query rather than the derived tables (same answer)."""
    return [
        ClaimConsensus(
            claim_id=r.claim_id, paper_id=r.paper_id, paper=r.venue_id, key=r.key,
            consensus=r.value, logbooks=int(r.logbooks), verified=int(r.verified),
            falsified=int(r.falsified), toy=int(r.toy), inconclusive=int(r.inconclusive),
            overridden=int(r.edited), level=r.level, below_minimum=r.below_minimum,
        )
        for r in _read(ctx, _consensus_reader, public, paper_ids, reference)
    ]  # fmt: skip


class ConsensusValue(NamedTuple):
    """A claim's consensus and its independent verified and falsified groups."""

    claim_id: int
    value: str
    verified: int
    falsified: int


def consensus_values(
    ctx: ChallengeContext, *, public: bool = False, reference: bool = False
) -> list[ConsensusValue]:
    """The consensus of every active claim: the consensus alone, without building a record per
    claim (for callers that only look a few of them up)."""

    def reader(v: Views) -> AnySelect:
        return consensus_value_select(v.consensus)

    return [ConsensusValue(**r._mapping) for r in _read(ctx, reader, public, None, reference)]


def consensus_value_select(k: ConsensusRows) -> AnySelect:
    """:class:`ConsensusValue` rows of ``k`` (labelled as its fields), by paper then claim."""
    return select(
        k.claim_id, k.value.label("value"), k.verified.label("verified"),
        k.falsified.label("falsified"),
    ).order_by(k.paper_id, k.claim_id)  # fmt: skip


class PaperCounts(NamedTuple):
    """A paper's claims per consensus value, its current logbooks and whether any verdict
    examined it: the columns of :data:`~openrepro.outcomes.consensus.OUTCOMES_SQL` and of
    ``outcome_papers``, read by name."""

    paper_id: int
    venue_id: str
    title: str
    claims: int
    logbooks: int
    verified: int
    falsified: int
    contested: int
    toy_only: int
    inconclusive: int
    unattempted: int
    examined: int


def _derived_outcomes(
    ctx: ChallengeContext, hidden: Sequence[int], paper_ids: Sequence[int] | None
) -> AnySelect:
    """:class:`PaperCounts` from ``outcome_papers``; papers ``hidden`` read as unattempted (no
    logbooks, not examined), as in the full query."""
    o = OutcomePaper
    hide = o.paper_id.in_(list(hidden)) if hidden else None

    def shown(column: Any, empty: Any) -> Any:
        if hide is None:
            return column
        return case((hide, empty), else_=column).label(column.key)

    zero = literal(0)
    counts = [o.logbooks, o.verified, o.falsified, o.contested, o.toy_only, o.inconclusive]
    only = [o.paper_id.in_(list(paper_ids))] if paper_ids is not None else []
    return (
        select(o.paper_id, o.venue_id, o.title, o.claims, *(shown(c, zero) for c in counts),
               shown(o.unattempted, o.claims), shown(o.examined, zero))
        .where(o.challenge_id == ctx.challenge_id, *only)
        .order_by(o.paper_id)
    )  # fmt: skip


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
        with ctx.store.session() as session:
            rows = _reference(session, ctx, ["," + outcomes], public, paper_ids)[0]
    else:
        derived.ensure_fresh(ctx)
        hidden = hidden_papers(ctx) if public else []
        with ctx.store.session() as session:
            rows = list(session.execute(_derived_outcomes(ctx, hidden, paper_ids)).all())
    levels = level_rows(ctx, paper_ids=paper_ids, public=public, reference=reference)
    out = [_outcome(PaperCounts(**r._mapping)) for r in rows]
    for o in out:
        verified, below = levels.get(o.paper_id, ({}, {}))
        o.verified_levels, o.below_minimum = level_counts(verified), level_counts(below)
    return out


class LevelCount(NamedTuple):
    """Claims of a paper (``paper_id``; None over every paper) with a ``level`` (verified, by
    the strongest provenance level counted) or a ``below_minimum`` (verified only below
    ``min_provenance_verified``, by the strongest such level)."""

    paper_id: int | None
    level: str | None
    below_minimum: str | None
    claims: int


def levels_reader(v: Views, *, per_paper: bool) -> AnySelect:
    """:class:`LevelCount` rows over the consensus: claims per (paper, ``level``,
    ``below_minimum``) for the claims with either, or per (``level``, ``below_minimum``) over
    every paper."""
    k = v.consensus
    paper: ColumnElement[Any] = k.paper_id if per_paper else literal(None)
    keys = [k.paper_id] if per_paper else []
    return (
        select(paper.label("paper_id"), k.level, k.below_minimum, func.count().label("claims"))
        .where(or_(k.level.is_not(None), k.below_minimum.is_not(None)))
        .group_by(*keys, k.level, k.below_minimum)
    )


def level_rows(
    ctx: ChallengeContext, *, paper_ids: Sequence[int] | None = None, public: bool = False,
    reference: bool = False,
) -> dict[int, tuple[dict[str, int], dict[str, int]]]:  # fmt: skip
    """Per paper (of the given papers) with any: its verified claims per provenance level of
    their strongest counted evidence, and its claims not counted verified whose verified
    verdicts are all below ``min_provenance_verified``, per the strongest such level
    (:func:`levels_reader` over the consensus). ``reference``: from the full query."""

    def reader(v: Views) -> AnySelect:
        return levels_reader(v, per_paper=True)

    rows = _read(ctx, reader, public, paper_ids, reference)
    return group_levels([LevelCount(**r._mapping) for r in rows])


def group_levels(rows: Sequence[LevelCount]) -> dict[int, tuple[dict[str, int], dict[str, int]]]:
    """:class:`LevelCount` rows per paper: (verified claims per level, claims verified only
    below the minimum per level). A claim has a ``level`` or a ``below_minimum``, never both,
    so each (paper, level) is one row."""
    out: dict[int, tuple[dict[str, int], dict[str, int]]] = {}
    for row in rows:
        entry = out.setdefault(int(row.paper_id or 0), ({}, {}))
        if row.level is not None:
            entry[0][row.level] = int(row.claims)
        elif row.below_minimum is not None:
            entry[1][row.below_minimum] = int(row.claims)
    return out


def _outcome(r: PaperCounts) -> PaperOutcome:
    claims, verified, falsified = int(r.claims), int(r.verified), int(r.falsified)
    contested, toy, examined = int(r.contested), int(r.toy_only), bool(r.examined)
    bad = falsified + contested
    out = PaperOutcome(
        paper_id=r.paper_id, paper=r.venue_id, title=r.title, claims=claims,
        logbooks=int(r.logbooks), verified=verified, falsified=falsified, contested=contested,
        toy_only=toy, inconclusive=int(r.inconclusive), unattempted=int(r.unattempted),
        examined=examined,
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
