"""Claim consensus and paper outcomes, computed in SQL (one statement each, any store).

Which verdicts count is :mod:`openrepro.outcomes.current` (the current verdicts, ``eff``).

"Independent" means different groups (``grp`` of :mod:`openrepro.outcomes.current`): a confirmed
team, or a participant alone (no team, or a team membership nobody confirmed). Within a group,
verified and falsified together count as inconclusive; across groups they make the claim
``contested``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.outcomes.current import current_verdicts_sql, hidden_papers, query_params, statement
from openrepro.outcomes.records import ClaimConsensus, PaperOutcome

__all__ = [
    "claim_consensus",
    "consensus_values",
    "paper_outcomes",
    "run_many",
    "run_sql",
]


_CONSENSUS_SQL = """
    team AS (
        SELECT claim_id, grp,
               MAX(CASE WHEN value = 'verified' THEN 1 ELSE 0 END) AS v,
               MAX(CASE WHEN value = 'falsified' THEN 1 ELSE 0 END) AS f,
               MAX(CASE WHEN value = 'toy' THEN 1 ELSE 0 END) AS t,
               COUNT(*) AS n, SUM(edited) AS edited
        FROM eff GROUP BY claim_id, grp
    ),
    per_claim AS (
        SELECT claim_id,
               SUM(CASE WHEN v = 1 AND f = 0 THEN 1 ELSE 0 END) AS nv,
               SUM(CASE WHEN f = 1 AND v = 0 THEN 1 ELSE 0 END) AS nf,
               SUM(CASE WHEN t = 1 AND v = 0 AND f = 0 THEN 1 ELSE 0 END) AS nt,
               SUM(CASE WHEN v = 0 AND f = 0 AND t = 0 THEN 1 ELSE 0 END)
                 + SUM(CASE WHEN v = 1 AND f = 1 THEN 1 ELSE 0 END) AS ni,
               SUM(n) AS logbooks, SUM(edited) AS edited
        FROM team GROUP BY claim_id
    ),
    consensus AS (
        SELECT c.id AS claim_id, c.paper_id, p.venue_id, c.key,
               CASE
                 WHEN pc.claim_id IS NULL THEN 'unattempted'
                 WHEN pc.nv > 0 AND pc.nf > 0 THEN 'contested'
                 WHEN pc.nv > 0 THEN 'verified'
                 WHEN pc.nf > 0 THEN 'falsified'
                 WHEN pc.nt > 0 THEN 'toy-only'
                 ELSE 'inconclusive'
               END AS consensus,
               COALESCE(pc.logbooks, 0) AS logbooks, COALESCE(pc.nv, 0) AS nv,
               COALESCE(pc.nf, 0) AS nf, COALESCE(pc.nt, 0) AS nt, COALESCE(pc.ni, 0) AS ni,
               COALESCE(pc.edited, 0) AS edited
        FROM claims c
        JOIN papers p ON p.id = c.paper_id
        LEFT JOIN per_claim pc ON pc.claim_id = c.id
        WHERE p.challenge_id = :challenge AND c.status = 'active' {paper_filter}
    )"""

_OUTCOMES_SQL = """
    per_paper AS (
        SELECT paper_id,
               COUNT(*) AS claims,
               SUM(CASE WHEN consensus = 'verified' THEN 1 ELSE 0 END) AS verified,
               SUM(CASE WHEN consensus = 'falsified' THEN 1 ELSE 0 END) AS falsified,
               SUM(CASE WHEN consensus = 'contested' THEN 1 ELSE 0 END) AS contested,
               SUM(CASE WHEN consensus = 'toy-only' THEN 1 ELSE 0 END) AS toy_only,
               SUM(CASE WHEN consensus = 'inconclusive' THEN 1 ELSE 0 END) AS inconclusive,
               SUM(CASE WHEN consensus = 'unattempted' THEN 1 ELSE 0 END) AS unattempted
        FROM consensus GROUP BY paper_id
    ),
    judged AS (SELECT DISTINCT paper_id FROM eff),
    books AS (
        SELECT l.paper_id, COUNT(*) AS n FROM logbooks l
        JOIN latest_logbook ll ON ll.id = l.id GROUP BY l.paper_id
    )
    SELECT p.id, p.venue_id, p.title,
           COALESCE(pp.claims, 0) AS claims, COALESCE(b.n, 0) AS logbooks,
           COALESCE(pp.verified, 0), COALESCE(pp.falsified, 0), COALESCE(pp.contested, 0),
           COALESCE(pp.toy_only, 0), COALESCE(pp.inconclusive, 0), COALESCE(pp.unattempted, 0),
           CASE WHEN j.paper_id IS NULL THEN 0 ELSE 1 END AS examined
    FROM papers p
    LEFT JOIN per_paper pp ON pp.paper_id = p.id
    LEFT JOIN judged j ON j.paper_id = p.id
    LEFT JOIN books b ON b.paper_id = p.id
    WHERE p.challenge_id = :challenge {paper_filter}
    ORDER BY p.id"""


def run_sql(
    session: Session, ctx: ChallengeContext, tail: str, public: bool,
    paper_ids: Sequence[int] | None,
) -> list[Any]:  # fmt: skip
    hidden = hidden_papers(ctx) if public else []
    paper_filter = "AND p.id IN :papers" if paper_ids is not None else ""
    body = (
        "WITH "
        + current_verdicts_sql(bool(hidden), paper_filter)
        + ","
        + _CONSENSUS_SQL.format(paper_filter=paper_filter)
        + tail.format(paper_filter=paper_filter)
    )
    stmt = statement(body)
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
    session: Session, ctx: ChallengeContext, tails: Sequence[str], public: bool
) -> list[list[Any]]:
    """Several statements over the same current verdicts and consensus, computed once: every
    step (latest logbooks, latest verdicts, edits, effective values, teams, consensus) is
    materialised in turn into a temporary table of this connection, then each tail reads them."""
    hidden = hidden_papers(ctx) if public else []
    steps = _split_ctes(
        current_verdicts_sql(bool(hidden)) + "," + _CONSENSUS_SQL.format(paper_filter="")
    )
    params = query_params(ctx, hidden)
    bind = session.connection()
    done: list[str] = []

    def prefix() -> str:
        return (
            ("WITH " + ", ".join(f"{n} AS (SELECT * FROM or_{n})" for n in done) + " ")
            if done
            else ""
        )

    try:
        for name, body in steps:
            sql = f"CREATE TEMPORARY TABLE or_{name} AS {prefix()}{body}"
            stmt = statement(sql)
            bind.execute(stmt, {k: v for k, v in params.items() if f":{k}" in body})
            done.append(name)
        head = prefix().rstrip()
        args = {"challenge": ctx.challenge_id}
        return [list(bind.execute(text(head + tail), args).all()) for tail in tails]
    finally:
        for name in done:
            bind.execute(text(f"DROP TABLE IF EXISTS or_{name}"))


def claim_consensus(
    ctx: ChallengeContext, *, paper_ids: Sequence[int] | None = None, public: bool = False
) -> list[ClaimConsensus]:
    """Consensus of every active claim (of the given papers), ordered by paper then claim."""
    tail = """
    SELECT claim_id, paper_id, venue_id, key, consensus, logbooks, nv, nf, nt, ni, edited
    FROM consensus ORDER BY paper_id, claim_id"""
    with ctx.store.session() as session:
        rows = run_sql(session, ctx, tail, public, paper_ids)
    return [
        ClaimConsensus(
            claim_id=r[0], paper_id=r[1], paper=r[2], key=r[3], consensus=r[4],
            logbooks=int(r[5]), verified=int(r[6]), falsified=int(r[7]), toy=int(r[8]),
            inconclusive=int(r[9]), overridden=int(r[10]),
        )
        for r in rows
    ]  # fmt: skip


def consensus_values(
    ctx: ChallengeContext, *, public: bool = False
) -> list[tuple[int, str, int, int]]:
    """(claim id, consensus, verified, falsified) of every active claim: the consensus alone,
    without building a record per claim (for callers that only look a few of them up)."""
    tail = " SELECT claim_id, consensus, nv, nf FROM consensus ORDER BY paper_id, claim_id"
    with ctx.store.session() as session:
        rows = run_sql(session, ctx, tail, public, None)
    return [(int(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows]


def paper_outcomes(
    ctx: ChallengeContext, *, paper_ids: Sequence[int] | None = None, public: bool = False
) -> list[PaperOutcome]:
    """One row per paper of the venue (attempted or not) with its outcome flags."""
    with ctx.store.session() as session:
        rows = run_sql(session, ctx, "," + _OUTCOMES_SQL, public, paper_ids)
    return [_outcome(r) for r in rows]


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
