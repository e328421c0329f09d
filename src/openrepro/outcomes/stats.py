"""`openrepro stats`: the seeds' outcome table, totals and per-participant credit.

Every figure is one SQL aggregation over the current verdicts and consensus (see
:mod:`.compute`), read from the derived tables (:mod:`.derived`); nothing loops over ORM rows.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.evidence import PROVENANCE_LEVELS
from openrepro.outcomes import compute, derived
from openrepro.outcomes.consensus import AGREES, LEVEL_TOTALS_SQL
from openrepro.outcomes.current import hidden_papers, query_params, statement
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
from openrepro.store import Challenge, Job, Participant
from openrepro.vocabulary import VERDICTS

__all__ = ["compute_stats", "render_markdown", "render_tables"]

_ROWS_SQL = """,
    per_paper AS (
        SELECT paper_id, COUNT(*) AS claims,
               SUM(CASE WHEN consensus = 'verified' THEN 1 ELSE 0 END) AS v,
               SUM(CASE WHEN consensus = 'falsified' THEN 1 ELSE 0 END) AS f,
               SUM(CASE WHEN consensus = 'contested' THEN 1 ELSE 0 END) AS c,
               SUM(CASE WHEN consensus = 'toy-only' THEN 1 ELSE 0 END) AS t
        FROM consensus GROUP BY paper_id
    ),
    examined AS (
        SELECT pp.* FROM per_paper pp JOIN (SELECT DISTINCT paper_id FROM eff) j
        ON j.paper_id = pp.paper_id
    )"""
#: the seeds' rows over ``examined`` (paper_id, claims, v, f, c, t: claims per consensus)
_ROWS_SELECT = """
    SELECT COUNT(*),
      SUM(CASE WHEN v > 0 THEN 1 ELSE 0 END),
      SUM(CASE WHEN v = claims THEN 1 ELSE 0 END),
      SUM(CASE WHEN v > 0 AND v < claims AND f + c = 0 THEN 1 ELSE 0 END),
      SUM(CASE WHEN v > 0 AND f + c > 0 THEN 1 ELSE 0 END),
      SUM(CASE WHEN f + c > 0 THEN 1 ELSE 0 END),
      SUM(CASE WHEN f = claims THEN 1 ELSE 0 END),
      SUM(CASE WHEN c > 0 THEN 1 ELSE 0 END),
      SUM(CASE WHEN t > 0 AND v = 0 AND f + c = 0 THEN 1 ELSE 0 END),
      SUM(CASE WHEN v = 0 AND f + c = 0 AND t = 0 THEN 1 ELSE 0 END)
    FROM examined"""

_CONSENSUS_COUNTS_SQL = """
    SELECT consensus, COUNT(*) FROM consensus GROUP BY consensus"""

_VERDICT_COUNTS_SQL = """
    SELECT value, provenance, COUNT(*) FROM eff GROUP BY value, provenance"""

_TOTALS_SQL = """,
    attempted AS (SELECT DISTINCT l.paper_id FROM logbooks l JOIN latest_logbook ll
                  ON ll.id = l.id)
    SELECT
      (SELECT COUNT(*) FROM papers p WHERE p.challenge_id = :challenge),
      (SELECT COUNT(*) FROM attempted),
      (SELECT COUNT(*) FROM latest_logbook),
      (SELECT COUNT(DISTINCT l.participant_id) FROM logbooks l JOIN latest_logbook ll
         ON ll.id = l.id),
      (SELECT COUNT(*) FROM consensus),
      (SELECT COUNT(*) FROM consensus WHERE consensus <> 'unattempted'),
      (SELECT COUNT(*) FROM eff)"""

_CREDIT_SQL = """,
    books AS (
        SELECT l.participant_id, COUNT(*) AS n FROM logbooks l
        JOIN latest_logbook ll ON ll.id = l.id GROUP BY l.participant_id
    ),
    mine AS (
        SELECT e.participant_id, COUNT(*) AS verdicts,
          SUM(CASE WHEN {verified} THEN 1 ELSE 0 END) AS v,
          SUM(CASE WHEN {falsified} THEN 1 ELSE 0 END) AS f
        FROM eff e JOIN consensus k ON k.claim_id = e.claim_id
        GROUP BY e.participant_id
    )
    SELECT pt.handle, pt.team, b.n, COALESCE(m.verdicts, 0), COALESCE(m.v, 0), COALESCE(m.f, 0),
           pt.team_confirmed
    FROM books b JOIN participants pt ON pt.id = b.participant_id
    LEFT JOIN mine m ON m.participant_id = b.participant_id""".format(
    verified=AGREES.format(value="verified"), falsified=AGREES.format(value="falsified")
)

# -- the same figures from the derived tables (see :mod:`.derived`); {shown}: not hidden --
_D_ROWS_SQL = """WITH examined AS (
        SELECT paper_id, claims, verified AS v, falsified AS f, contested AS c, toy_only AS t
        FROM outcome_papers WHERE challenge_id = :challenge AND examined = 1 {shown}
    )"""

_D_CONSENSUS_SQL = """
    SELECT {sums} FROM outcome_papers WHERE challenge_id = :challenge"""

_D_VERDICT_COUNTS_SQL = """
    SELECT value, provenance, SUM(n) FROM outcome_tallies
    WHERE challenge_id = :challenge {shown} GROUP BY value, provenance"""

_D_TOTALS_SQL = """
    SELECT
      (SELECT COUNT(*) FROM papers p WHERE p.challenge_id = :challenge),
      COALESCE(SUM(CASE WHEN logbooks > 0 {shown_case} THEN 1 ELSE 0 END), 0),
      COALESCE(SUM(CASE WHEN 1 = 1 {shown_case} THEN logbooks ELSE 0 END), 0),
      COALESCE(SUM(claims), 0),
      COALESCE(SUM(CASE WHEN 1 = 1 {shown_case} THEN claims - unattempted ELSE 0 END), 0)
    FROM outcome_papers WHERE challenge_id = :challenge"""

_D_CREDIT_SQL = """
    SELECT pt.handle, pt.team, b.n, b.verdicts, b.v, b.f, pt.team_confirmed
    FROM (SELECT participant_id, COUNT(*) AS n, SUM(verdicts) AS verdicts,
                 SUM(credit_verified) AS v, SUM(credit_falsified) AS f
          FROM outcome_logbooks WHERE challenge_id = :challenge {shown}
          GROUP BY participant_id) b
    JOIN participants pt ON pt.id = b.participant_id"""

_CONSENSUS_COLUMNS = dict(zip(CONSENSUS, ("verified", "falsified", "contested", "toy_only",
                                          "inconclusive", "unattempted"), strict=True))  # fmt: skip


def _derived_figures(session: Session, ctx: ChallengeContext, public: bool) -> list[list[Any]]:
    """The six result sets of the reference tails, from the derived tables."""
    hidden = hidden_papers(ctx) if public else []
    shown = "AND paper_id NOT IN :hidden" if hidden else ""
    shown_case = shown  # the same condition inside CASE WHEN
    if hidden:  # a hidden paper's claims read as unattempted, as in the full query
        sums = ", ".join(
            f"SUM(CASE WHEN paper_id IN :hidden THEN {'claims' if c == 'unattempted' else 0} "
            f"ELSE {c} END)"
            for c in _CONSENSUS_COLUMNS.values()
        )
    else:
        sums = ", ".join(f"SUM({c})" for c in _CONSENSUS_COLUMNS.values())
    args = query_params(ctx, hidden)
    out: list[list[Any]] = []
    for sql in (_D_ROWS_SQL + _ROWS_SELECT, _D_CONSENSUS_SQL, _D_VERDICT_COUNTS_SQL,
                _D_TOTALS_SQL, _D_CREDIT_SQL):  # fmt: skip
        stmt = statement(sql.format(shown=shown, sums=sums, shown_case=shown_case))
        out.append(list(session.execute(stmt, args).all()))
    # verified claims per provenance level: the paper outcomes' statement over the consensus
    levels = statement("WITH " + derived.derived_sql(bool(hidden)) + LEVEL_TOTALS_SQL)
    out.append(list(session.execute(levels, args).all()))
    consensus_sums = out[1][0]
    out[1] = [
        (name, int(n or 0)) for name, n in zip(_CONSENSUS_COLUMNS, consensus_sums, strict=True)
    ]
    # totals in the reference order: participants with a current logbook are the credit rows,
    # current verdicts the sum of the verdict counts
    papers, attempted, logbooks, claims, judged = out[3][0]
    verdicts = sum(int(n) for _v, _p, n in out[2])
    out[3] = [(papers, attempted, logbooks, len(out[4]), claims, judged, verdicts)]
    return out


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
            tails = [_ROWS_SQL + _ROWS_SELECT, _CONSENSUS_COUNTS_SQL, _VERDICT_COUNTS_SQL,
                     _TOTALS_SQL, _CREDIT_SQL, LEVEL_TOTALS_SQL]  # fmt: skip
            figures = compute.run_many(session, ctx, tails, public, reference=True)
        else:
            figures = _derived_figures(session, ctx, public)
        rows_out, consensus_rows, verdict_rows, totals_out, credit_rows, level_rows = figures
        counts = [int(x or 0) for x in rows_out[0]]
        totals_row = totals_out[0]
        participants = session.scalar(
            select(func.count(Participant.id)).where(Participant.challenge_id == ctx.challenge_id)
        )
        name = session.scalar(select(Challenge.name).where(Challenge.id == ctx.challenge_id))
        jobs = _jobs(session, ctx)

    papers, attempted, logbooks, active, claims, judged, verdicts = (int(x) for x in totals_row)
    examined = counts[0]
    rows = [
        OutcomeRow(key=key, label=label, count=count,
                   percent=_pct(count, attempted if key == "examined" else examined))
        for (key, label), count in zip(OUTCOME_ROWS, counts, strict=True)
    ]  # fmt: skip
    by_value: dict[str, int] = dict.fromkeys(VERDICTS, 0)
    by_level: dict[str, int] = dict.fromkeys(PROVENANCE_LEVELS, 0)
    for value, level, count in verdict_rows:
        by_value[value] = by_value.get(value, 0) + int(count)
        by_level[level] = by_level.get(level, 0) + int(count)
    consensus: dict[str, int] = dict.fromkeys(CONSENSUS, 0)
    consensus.update({k: int(n) for k, n in consensus_rows})
    credit = [
        ParticipantCredit(handle=h, team=t, logbooks=int(n), verdicts=int(vs), verified=int(v),
                          falsified=int(f), credit=int(v) + int(f),
                          team_confirmed=bool(t and tc))
        for h, t, n, vs, v, f, tc in credit_rows
    ]  # fmt: skip
    credit.sort(key=lambda c: (-c.credit, -c.verified, -c.logbooks, c.handle))
    verified_levels: dict[str, int] = {}
    below_minimum: dict[str, int] = {}
    for level, below, n in level_rows:
        if level is not None:
            verified_levels[level] = int(n)
        else:
            below_minimum[below] = int(n)
    return Stats(
        author_responses=author_response_counts(ctx),
        challenge=name or ctx.settings.name,
        rows=rows,
        totals=Totals(
            papers=papers,
            papers_attempted=attempted,
            share_attempted=_pct(attempted, papers),
            participants=int(participants or 0),
            participants_active=active,
            logbooks=logbooks,
            claims=claims,
            claims_judged=judged,
            verdicts=verdicts,
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
