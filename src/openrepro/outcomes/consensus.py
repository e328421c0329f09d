"""Claim consensus in SQL: common table expressions over ``eff`` (the current verdicts).

"Independent" means different groups (``grp`` of :mod:`openrepro.outcomes.current`): a confirmed
team, or a participant alone (no team, or a team membership nobody confirmed). Within a group,
verified and falsified together count as inconclusive; across groups they make the claim
``contested``. A claim nobody judged is ``unattempted``.

:data:`CONSENSUS_SQL` reads ``eff`` and the ``claims`` and ``papers`` tables; ``{paper_filter}``
adds conditions on ``p`` (papers). The full query (:mod:`openrepro.outcomes.compute`) and the
derived tables' refresh (:mod:`openrepro.outcomes.derived`) both use it, and
:data:`OUTCOMES_SQL` (per-paper counts) and :func:`agrees` (what earns credit) likewise.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, and_

from openrepro.vocabulary import PROVENANCE_LEVELS

__all__ = ["BY_PAPER", "CONSENSUS_SQL", "OUTCOMES_SQL", "agrees"]


def _rank(column: str) -> str:
    """A provenance level as its rank (0 for ``testimony``), so ``MAX`` picks the strongest."""
    whens = " ".join(f"WHEN '{level}' THEN {i}" for i, level in enumerate(PROVENANCE_LEVELS))
    return f"CASE {column} {whens} END"


def _level(rank: str) -> str:
    """A rank back to its provenance level (NULL stays NULL)."""
    whens = " ".join(f"WHEN {i} THEN '{level}'" for i, level in enumerate(PROVENANCE_LEVELS))
    return f"CASE {rank} {whens} END"


#: ``team``, ``per_claim`` and ``consensus``: one ``consensus`` row per active claim of
#: challenge ``:challenge`` with its value and counts (nv, nf, nt, ni: independent groups),
#: ``level``: for a verified claim, the strongest provenance level among the verified verdicts
#: of the groups that count it verified (how strong its "verified" is), and ``below_minimum``:
#: for any other claim, the strongest level among its verdicts the judge found verified on
#: evidence below ``min_provenance_verified`` (``eff.below_minimum``): shown, not counted.
CONSENSUS_SQL = f"""
    team AS (
        SELECT claim_id, grp,
               MAX(CASE WHEN value = 'verified' THEN 1 ELSE 0 END) AS v,
               MAX(CASE WHEN value = 'falsified' THEN 1 ELSE 0 END) AS f,
               MAX(CASE WHEN value = 'toy' THEN 1 ELSE 0 END) AS t,
               COUNT(*) AS n, SUM(edited) AS edited,
               MAX(CASE WHEN value = 'verified' THEN {_rank("provenance")} END) AS lv,
               MAX(CASE WHEN below_minimum = 1 THEN {_rank("provenance")} END) AS lb
        FROM eff GROUP BY claim_id, grp
    ),
    per_claim AS (
        SELECT claim_id,
               SUM(CASE WHEN v = 1 AND f = 0 THEN 1 ELSE 0 END) AS nv,
               SUM(CASE WHEN f = 1 AND v = 0 THEN 1 ELSE 0 END) AS nf,
               SUM(CASE WHEN t = 1 AND v = 0 AND f = 0 THEN 1 ELSE 0 END) AS nt,
               SUM(CASE WHEN v = 0 AND f = 0 AND t = 0 THEN 1 ELSE 0 END)
                 + SUM(CASE WHEN v = 1 AND f = 1 THEN 1 ELSE 0 END) AS ni,
               SUM(n) AS logbooks, SUM(edited) AS edited,
               MAX(CASE WHEN v = 1 AND f = 0 THEN lv END) AS lv, MAX(lb) AS lb
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
               COALESCE(pc.edited, 0) AS edited,
               CASE WHEN pc.nv > 0 AND pc.nf = 0 THEN {_level("pc.lv")} END AS level,
               CASE WHEN NOT (pc.nv > 0 AND pc.nf = 0) THEN {_level("pc.lb")} END
                 AS below_minimum
        FROM claims c
        JOIN papers p ON p.id = c.paper_id
        LEFT JOIN per_claim pc ON pc.claim_id = c.id
        WHERE p.challenge_id = :challenge AND c.status = 'active' {{paper_filter}}
    )"""

#: After ``consensus``: one row per paper of the challenge (attempted or not) with its counts of
#: claims per consensus value, its current logbooks and whether any verdict examined it.
#: ``{extra_columns}`` adds columns after ``examined`` (", ..." or nothing), ``{order}`` the
#: rows' order (:data:`BY_PAPER`, or nothing where the rows are inserted into a table).
OUTCOMES_SQL = """
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
    SELECT p.id AS paper_id, p.venue_id AS venue_id, p.title AS title,
           COALESCE(pp.claims, 0) AS claims, COALESCE(b.n, 0) AS logbooks,
           COALESCE(pp.verified, 0) AS verified, COALESCE(pp.falsified, 0) AS falsified,
           COALESCE(pp.contested, 0) AS contested, COALESCE(pp.toy_only, 0) AS toy_only,
           COALESCE(pp.inconclusive, 0) AS inconclusive,
           COALESCE(pp.unattempted, 0) AS unattempted,
           CASE WHEN j.paper_id IS NULL THEN 0 ELSE 1 END AS examined{extra_columns}
    FROM papers p
    LEFT JOIN per_paper pp ON pp.paper_id = p.id
    LEFT JOIN judged j ON j.paper_id = p.id
    LEFT JOIN books b ON b.paper_id = p.id
    WHERE p.challenge_id = :challenge {paper_filter}
    {order}"""

#: :data:`OUTCOMES_SQL`'s order for readers.
BY_PAPER = "ORDER BY p.id"


def agrees(
    value: ColumnElement[str], consensus: ColumnElement[str], provenance: ColumnElement[str],
    agreed: str,
) -> ColumnElement[bool]:  # fmt: skip
    """A current verdict (its effective ``value`` and ``provenance``) that earns credit: it
    agrees with its claim's ``consensus`` on ``agreed`` (verified or falsified), on evidence
    stronger than testimony."""
    return and_(value == agreed, consensus == agreed, provenance != "testimony")
