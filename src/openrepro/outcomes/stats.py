"""`openrepro stats`: the seeds' outcome table, totals and per-participant credit.

Every figure is one SQL aggregation (SQLAlchemy Core, columns read by name) over the current
verdicts and consensus (see :mod:`.compute`), read from the derived tables (:mod:`.derived`),
or with ``reference`` over the full query; nothing loops over ORM rows.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Select, and_, case, distinct, func, literal, select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.evidence import PROVENANCE_LEVELS
from openrepro.outcomes import compute, derived
from openrepro.outcomes.compute import LevelCount
from openrepro.outcomes.consensus import agrees
from openrepro.outcomes.current import hidden_papers
from openrepro.outcomes.records import (
    CONSENSUS,
    OUTCOME_ROWS,
    OutcomeRow,
    ParticipantCredit,
    Stats,
    Totals,
    level_counts,
)
from openrepro.outcomes.responses import author_response_counts
from openrepro.store import Challenge, Job, Logbook, Paper, Participant
from openrepro.store.tables_outcomes import OutcomeLogbook, OutcomePaper, OutcomeTally
from openrepro.vocabulary import VERDICTS

__all__ = ["compute_stats", "render_markdown", "render_tables"]

#: consensus value -> its column of ``outcome_papers``
_CONSENSUS_COLUMNS = dict(zip(CONSENSUS, ("verified", "falsified", "contested", "toy_only",
                                          "inconclusive", "unattempted"), strict=True))  # fmt: skip


class _Totals(NamedTuple):
    papers: int
    attempted: int  # papers with a current logbook
    logbooks: int  # current logbooks
    active: int  # participants with a current logbook
    claims: int
    judged: int  # claims not unattempted
    verdicts: int  # current verdicts


class _Credit(NamedTuple):
    handle: str
    team: str | None
    logbooks: int
    verdicts: int
    verified: int  # current verdicts agreeing with a verified consensus
    falsified: int
    team_confirmed: bool


class _Figures(NamedTuple):
    """What the stats are made of, from the derived tables or the full query alike."""

    rows: dict[str, int]  # papers per outcome row (key of OUTCOME_ROWS)
    consensus: dict[str, int]  # claims per consensus value
    verdicts: list[tuple[str, str, int]]  # (effective value, provenance, current verdicts)
    totals: _Totals
    credit: list[_Credit]
    levels: list[LevelCount]  # over every paper


def _outcome_rows(examined: Any) -> compute.AnySelect:
    """Papers per outcome row (labelled by the keys of :data:`OUTCOME_ROWS`) over
    ``examined`` (columns ``claims``, ``v``, ``f``, ``c``, ``t``: claims per consensus value,
    one row per examined paper)."""
    v, f, c, t, claims = (examined.c[n] for n in ("v", "f", "c", "t", "claims"))
    bad = f + c

    def papers(condition: ColumnElement[bool]) -> ColumnElement[int]:
        return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)

    return select(
        func.count().label("examined"),
        papers(v > 0).label("any_verified"),
        papers(v == claims).label("fully_reproduced"),
        papers(and_(v > 0, v < claims, bad == 0)).label("partially_reproduced"),
        papers(and_(v > 0, bad > 0)).label("mixed"),
        papers(bad > 0).label("falsified"),
        papers(f == claims).label("all_falsified"),
        papers(c > 0).label("contested"),
        papers(and_(t > 0, v == 0, bad == 0)).label("toy_only"),
        papers(and_(v == 0, bad == 0, t == 0)).label("nothing_established"),
    ).select_from(examined)


def _counted(condition: ColumnElement[bool]) -> ColumnElement[int]:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


# -- the figures over the full query (the reference: :class:`compute.Views` of its steps) ------


def _reference_rows(views: compute.Views) -> compute.AnySelect:
    k, cur = views.consensus, views.current
    per_paper = (
        select(k.paper_id, func.count().label("claims"),
               _counted(k.value == "verified").label("v"),
               _counted(k.value == "falsified").label("f"),
               _counted(k.value == "contested").label("c"),
               _counted(k.value == "toy-only").label("t"))
        .group_by(k.paper_id)
        .subquery("per_paper")
    )  # fmt: skip
    judged = select(cur.paper_id).distinct().subquery("judged")
    examined = (
        select(per_paper)
        .join(judged, judged.c.paper_id == per_paper.c.paper_id)
        .subquery("examined")
    )
    return _outcome_rows(examined)


def _reference_consensus(views: compute.Views) -> compute.AnySelect:
    k = views.consensus
    return select(k.value.label("consensus"), func.count().label("n")).group_by(k.value)


def _reference_verdicts(views: compute.Views) -> compute.AnySelect:
    cur = views.current
    return select(cur.value, cur.provenance, func.count().label("n")).group_by(
        cur.value, cur.provenance
    )


def _current_books(views: compute.Views) -> Any:
    latest = views.current.latest_logbook
    return (
        select(Logbook.paper_id, Logbook.participant_id)
        .join(latest, latest.c.id == Logbook.id)
        .subquery("books")
    )


def _reference_totals(ctx: ChallengeContext) -> compute.Reader:
    def reader(views: compute.Views) -> compute.AnySelect:
        k, cur = views.consensus, views.current
        books = _current_books(views)

        def count(query: Select[Any]) -> Any:
            return query.scalar_subquery()

        return select(
            count(select(func.count()).where(Paper.challenge_id == ctx.challenge_id))
            .label("papers"),
            count(select(func.count(distinct(books.c.paper_id)))).label("attempted"),
            count(select(func.count()).select_from(books)).label("logbooks"),
            count(select(func.count(distinct(books.c.participant_id)))).label("active"),
            count(select(func.count()).select_from(k.consensus)).label("claims"),
            count(select(func.count()).select_from(k.consensus)
                  .where(k.value != "unattempted")).label("judged"),
            count(select(func.count()).select_from(cur.eff)).label("verdicts"),
        )  # fmt: skip

    return reader


def _reference_credit(views: compute.Views) -> compute.AnySelect:
    k, cur = views.consensus, views.current
    current = _current_books(views)
    books = (
        select(current.c.participant_id, func.count().label("n"))
        .group_by(current.c.participant_id)
        .subquery("per_participant")
    )
    mine = (
        select(cur.participant_id, func.count().label("verdicts"),
               _counted(agrees(cur.value, k.value, cur.provenance, "verified")).label("v"),
               _counted(agrees(cur.value, k.value, cur.provenance, "falsified")).label("f"))
        .select_from(cur.eff)
        .join(k.consensus, k.claim_id == cur.claim_id)
        .group_by(cur.participant_id)
        .subquery("mine")
    )  # fmt: skip
    return (
        select(Participant.handle, Participant.team, books.c.n.label("logbooks"),
               func.coalesce(mine.c.verdicts, 0).label("verdicts"),
               func.coalesce(mine.c.v, 0).label("verified"),
               func.coalesce(mine.c.f, 0).label("falsified"), Participant.team_confirmed)
        .select_from(books)
        .join(Participant, Participant.id == books.c.participant_id)
        .outerjoin(mine, mine.c.participant_id == books.c.participant_id)
    )  # fmt: skip


def _reference_levels(views: compute.Views) -> compute.AnySelect:
    return compute.levels_reader(views, per_paper=False)


def _reference_figures(session: Session, ctx: ChallengeContext, public: bool) -> _Figures:
    rows, consensus, verdicts, totals, credit, levels = compute.run_many(
        session, ctx,
        [_reference_rows, _reference_consensus, _reference_verdicts, _reference_totals(ctx),
         _reference_credit, _reference_levels],
        public,
    )  # fmt: skip
    return _Figures(
        rows={key: int(rows[0]._mapping[key] or 0) for key, _ in OUTCOME_ROWS},
        consensus={r.consensus: int(r.n) for r in consensus},
        verdicts=[(r.value, r.provenance, int(r.n)) for r in verdicts],
        totals=_Totals(**{k: int(v or 0) for k, v in totals[0]._mapping.items()}),
        credit=[_Credit(**r._mapping) for r in credit],
        levels=[LevelCount(**r._mapping) for r in levels],
    )


# -- the same figures from the derived tables (see :mod:`.derived`) ----------------------------


def _derived_figures(session: Session, ctx: ChallengeContext, public: bool) -> _Figures:
    """The figures of :func:`_reference_figures`, from the derived tables' per-paper rows."""
    hidden = hidden_papers(ctx) if public else []
    o, tally, book = OutcomePaper, OutcomeTally, OutcomeLogbook
    hide = o.paper_id.in_(hidden) if hidden else None
    mine = [o.challenge_id == ctx.challenge_id]

    def shown(table: Any) -> list[ColumnElement[bool]]:
        where = [table.challenge_id == ctx.challenge_id]
        return [*where, table.paper_id.not_in(hidden)] if hidden else where

    examined = (
        select(o.claims, o.verified.label("v"), o.falsified.label("f"),
               o.contested.label("c"), o.toy_only.label("t"))
        .where(o.examined == 1, *shown(o))
        .subquery("examined")
    )  # fmt: skip
    counts = session.execute(_outcome_rows(examined)).one()._mapping

    def unless_hidden(value: Any, hidden_value: Any) -> Any:
        return value if hide is None else case((hide, hidden_value), else_=value)

    # a hidden paper's claims read as unattempted, as in the full query
    per_value = {
        name: func.coalesce(func.sum(unless_hidden(
            getattr(o, column), o.claims if name == "unattempted" else literal(0)
        )), 0).label(column)
        for name, column in _CONSENSUS_COLUMNS.items()
    }  # fmt: skip
    consensus_row = session.execute(select(*per_value.values()).where(*mine)).one()._mapping
    verdicts = [
        (r.value, r.provenance, int(r.n))
        for r in session.execute(
            select(tally.value, tally.provenance, func.sum(tally.n).label("n"))
            .where(*shown(tally))
            .group_by(tally.value, tally.provenance)
        )
    ]
    per_participant = (
        select(book.participant_id, func.count().label("n"),
               func.sum(book.verdicts).label("verdicts"),
               func.sum(book.credit_verified).label("v"),
               func.sum(book.credit_falsified).label("f"))
        .where(*shown(book))
        .group_by(book.participant_id)
        .subquery("per_participant")
    )  # fmt: skip
    credit = [
        _Credit(**r._mapping)
        for r in session.execute(
            select(Participant.handle, Participant.team,
                   per_participant.c.n.label("logbooks"), per_participant.c.verdicts,
                   per_participant.c.v.label("verified"),
                   per_participant.c.f.label("falsified"), Participant.team_confirmed)
            .join(Participant, Participant.id == per_participant.c.participant_id)
        )
    ]  # fmt: skip
    sums = session.execute(
        select(
            func.coalesce(func.sum(unless_hidden(case((o.logbooks > 0, 1), else_=0), 0)), 0)
            .label("attempted"),
            func.coalesce(func.sum(unless_hidden(o.logbooks, 0)), 0).label("logbooks"),
            func.coalesce(func.sum(o.claims), 0).label("claims"),
            func.coalesce(func.sum(unless_hidden(o.claims - o.unattempted, 0)), 0)
            .label("judged"),
        ).where(*mine)
    ).one()  # fmt: skip
    papers = session.scalar(
        select(func.count(Paper.id)).where(Paper.challenge_id == ctx.challenge_id)
    )
    views = compute.Views(
        current=derived.current_rows(ctx, hidden), consensus=derived.consensus_rows(ctx, hidden)
    )
    levels = [LevelCount(**r._mapping) for r in session.execute(_reference_levels(views))]
    return _Figures(
        rows={key: int(counts[key] or 0) for key, _ in OUTCOME_ROWS},
        consensus={name: int(consensus_row[column] or 0)
                   for name, column in _CONSENSUS_COLUMNS.items()},
        verdicts=verdicts,
        # participants with a current logbook are the credit rows, current verdicts the sum
        # of the verdict counts
        totals=_Totals(papers=int(papers or 0), attempted=int(sums.attempted),
                       logbooks=int(sums.logbooks), active=len(credit), claims=int(sums.claims),
                       judged=int(sums.judged), verdicts=sum(n for _v, _p, n in verdicts)),
        credit=credit,
        levels=levels,
    )  # fmt: skip


def _pct(count: int, whole: int) -> float:
    return round(100.0 * count / whole, 1) if whole else 0.0


def _jobs(session: Session, ctx: ChallengeContext) -> int:
    return (
        session.scalar(select(func.count(Job.id)).where(Job.challenge_id == ctx.challenge_id)) or 0
    )


def compute_stats(ctx: ChallengeContext, *, public: bool = False, reference: bool = False) -> Stats:
    """The seeds' table (count and % of examined), totals, consensus and verdict counts (per
    value and per provenance level), verified claims per provenance level (and those verified
    only below ``min_provenance_verified``), and per-participant credit, best first. ``reference``:
    from the full query rather than the derived tables (same answer; see :mod:`.derived`)."""
    if not reference:
        derived.ensure_fresh(ctx)
    with ctx.store.session() as session:
        if reference:
            figures = _reference_figures(session, ctx, public)
        else:
            figures = _derived_figures(session, ctx, public)
        participants = session.scalar(
            select(func.count(Participant.id)).where(Participant.challenge_id == ctx.challenge_id)
        )
        name = session.scalar(select(Challenge.name).where(Challenge.id == ctx.challenge_id))
        jobs = _jobs(session, ctx)

    t = figures.totals
    examined = figures.rows["examined"]
    rows = [
        OutcomeRow(key=key, label=label, count=figures.rows[key],
                   percent=_pct(figures.rows[key], t.attempted if key == "examined" else examined))
        for key, label in OUTCOME_ROWS
    ]  # fmt: skip
    by_value: dict[str, int] = dict.fromkeys(VERDICTS, 0)
    by_level: dict[str, int] = dict.fromkeys(PROVENANCE_LEVELS, 0)
    for value, level, count in figures.verdicts:
        by_value[value] = by_value.get(value, 0) + count
        by_level[level] = by_level.get(level, 0) + count
    consensus: dict[str, int] = dict.fromkeys(CONSENSUS, 0)
    consensus.update(figures.consensus)
    credit = [
        ParticipantCredit(handle=c.handle, team=c.team, logbooks=int(c.logbooks),
                          verdicts=int(c.verdicts), verified=int(c.verified),
                          falsified=int(c.falsified), credit=int(c.verified) + int(c.falsified),
                          team_confirmed=bool(c.team and c.team_confirmed))
        for c in figures.credit
    ]  # fmt: skip
    credit.sort(key=lambda c: (-c.credit, -c.verified, -c.logbooks, c.handle))
    verified_levels: dict[str, int] = {}
    below_minimum: dict[str, int] = {}
    for row in figures.levels:
        if row.level is not None:
            verified_levels[row.level] = int(row.claims)
        elif row.below_minimum is not None:
            below_minimum[row.below_minimum] = int(row.claims)
    return Stats(
        author_responses=author_response_counts(ctx),
        challenge=name or ctx.settings.name,
        rows=rows,
        totals=Totals(
            papers=t.papers,
            papers_attempted=t.attempted,
            share_attempted=_pct(t.attempted, t.papers),
            participants=int(participants or 0),
            participants_active=t.active,
            logbooks=t.logbooks,
            claims=t.claims,
            claims_judged=t.judged,
            verdicts=t.verdicts,
            jobs=jobs,
        ),
        consensus=consensus,
        verdicts=by_value,
        provenance=by_level,
        credit=credit,
        min_provenance_verified=ctx.settings.min_provenance_verified,
        verified_levels=level_counts(verified_levels),
        below_minimum=level_counts(below_minimum),
    )


def render_markdown(stats: Stats, *, credit_limit: int = 20) -> str:
    """The stats as Markdown (what `openrepro stats --format md` prints): a title, then
    :func:`render_tables`."""
    return f"# {stats.challenge}: outcomes\n\n" + render_tables(stats, credit_limit=credit_limit)


def render_tables(stats: Stats, *, credit_limit: int = 20) -> str:
    """The stats' Markdown tables: outcome rows, totals, consensus, verdicts and provenance,
    verified claims per provenance level, author responses, and the first ``credit_limit``
    participants by credit (none for 0). The one rendering of these tables: `stats --format md`
    and the frozen dataset's card use it."""
    t = stats.totals
    lines = [
        "| Row | Papers | % of examined |",
        "|---|---:|---:|",
    ]
    for row in stats.rows:
        pct = (
            f"{row.percent:.1f} % of attempted" if row.key == "examined" else f"{row.percent:.1f} %"
        )
        lines.append(f"| {row.label} | {row.count} | {pct} |")
    lines += [
        "",
        "| Total | |",
        "|---|---:|",
        f"| Papers in the venue | {t.papers} |",
        f"| Papers attempted | {t.papers_attempted} ({t.share_attempted:.1f} %) |",
        f"| Participants (with a logbook) | {t.participants} ({t.participants_active}) |",
        f"| Logbooks | {t.logbooks} |",
        f"| Claims (judged) | {t.claims} ({t.claims_judged}) |",
        f"| Current verdicts | {t.verdicts} |",
        f"| Compute jobs | {t.jobs} |",
        "",
        "| Claim consensus | Claims |",
        "|---|---:|",
        *(f"| {k} | {n} |" for k, n in stats.consensus.items()),
        "",
        "| Verdict | Count | | Provenance | Count |",
        "|---|---:|---|---|---:|",
    ]
    values = list(stats.verdicts.items())
    levels = list(stats.provenance.items())
    for i in range(max(len(values), len(levels))):
        v = values[i] if i < len(values) else ("", "")
        lv = levels[i] if i < len(levels) else ("", "")
        lines.append(f"| {v[0]} | {v[1]} | | {lv[0]} | {lv[1]} |")
    lines += [
        "",
        f"Verified claims by provenance level: {stats.describe_levels()} (a verified counts "
        f"from `{stats.min_provenance_verified}` up).",
        "",
        "| Provenance | Verified claims | Verified only below the minimum (not counted) |",
        "|---|---:|---:|",
    ]
    for level in reversed(PROVENANCE_LEVELS):
        lines.append(f"| {level} | {stats.verified_levels.get(level, 0)} "
                     f"| {stats.below_minimum.get(level, 0)} |")  # fmt: skip
    if stats.author_responses:
        lines += ["", "| Author response | Findings |", "|---|---:|"]
        lines += [f"| {k} | {n} |" for k, n in stats.author_responses.items()]
    if stats.credit and credit_limit > 0:
        lines += [
            "",
            "| Participant | Team | Logbooks | Verified | Falsified | Credit |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for c in stats.credit[:credit_limit]:
            team = f"{c.team} (unconfirmed)" if c.team and not c.team_confirmed else c.team or ""
            lines.append(
                f"| {c.handle} | {team} | {c.logbooks} | {c.verified} | {c.falsified} "
                f"| {c.credit} |"
            )
    return "\n".join(lines) + "\n"
