"""The current verdict of every (logbook, claim): the one definition every view counts.

A verdict is *current* when it is

* on the newest revision of its participant's logbook for the paper
  (:mod:`openrepro.logbooks.revisions`);
* the newest verdict of that (logbook, claim), whatever judge config wrote it;
* on an active claim;
* and, in public views, not on a paper inside its anti-herding window (:func:`hidden_papers`).

Its *group* (``grp``) is the unit of independence: ``team:<name>`` for a participant whose team
membership is confirmed (:mod:`openrepro.identity`), else ``participant:<handle>``; a
self-declared, unconfirmed team does not count as one.

Its *effective value* (``value``) is the newest organizer edit or re-check decision
(:class:`~openrepro.store.VerdictEdit`) when there is one, else the judge's value, except that a
``verified`` resting on evidence below the challenge's ``min_provenance_verified`` counts as
``inconclusive``, and so does every verdict of an *unvouched* participant under ``open``
registration: one who registered themselves (no invite, no Hugging Face login, not registered
by an organizer: ``identity_source`` empty) and has no confirmed team. Such verdicts are shown,
not counted: a sock puppet moves no consensus and no other participant's credit. A verdict
judged under a participant's own unconfirmed check proposal (``provisional``,
:mod:`openrepro.claims.proposals`) counts as ``inconclusive`` too, until the proposal is
confirmed and the claim judged again. The judge's own value is kept beside it.

Consensus, paper outcomes and stats (:mod:`openrepro.outcomes.compute`), the re-check queue,
author outreach, the board, the static site and the frozen dataset all read current verdicts
from here: :func:`current_verdicts_sql` for statements written in SQL over ``eff``, and
:func:`current_verdicts` for code that wants the stored rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, func, select, text
from sqlalchemy.orm import Session, defer, selectinload

from openrepro.challenge import ChallengeContext
from openrepro.evidence import PROVENANCE_LEVELS
from openrepro.logbooks.revisions import latest_logbook_sql
from openrepro.store import Logbook, Paper, Participant, Verdict, VerdictEdit

__all__ = [
    "CurrentVerdict",
    "accepted_levels",
    "current_verdicts",
    "current_verdicts_query",
    "current_verdicts_sql",
    "hidden_papers",
    "open_registration",
    "query_params",
    "statement",
]


def accepted_levels(minimum: str) -> list[str]:
    """The provenance levels at which a ``verified`` counts: ``minimum`` and stronger."""
    if minimum not in PROVENANCE_LEVELS:
        return list(PROVENANCE_LEVELS)
    return list(PROVENANCE_LEVELS[PROVENANCE_LEVELS.index(minimum) :])


#: The rules of the effective value, in order: (name, condition, value). The first whose
#: condition holds gives the value; else the judge's own (``v.verdict``).
_VALUE_RULES: tuple[tuple[str, str, str], ...] = (
    ("edit", "e.id IS NOT NULL", "e.new_value"),
    ("unvouched", "(:open_registration = 1 AND pt.identity_source = ''"
     " AND NOT (pt.team IS NOT NULL AND pt.team_confirmed))", "'inconclusive'"),
    ("provisional", "v.provisional", "'inconclusive'"),
    ("level", "(v.verdict = 'verified' AND v.provenance NOT IN :accepted)", "'inconclusive'"),
)  # fmt: skip


def _case(pick: Callable[[str, str], str], otherwise: str) -> str:
    """One ``CASE`` over :data:`_VALUE_RULES`, each rule's result chosen by ``pick(name,
    value)``: the effective value, or ``below_minimum`` (1 where the provenance rule decides:
    a ``verified`` not counted only because its level is below the minimum)."""
    whens = " ".join(f"WHEN {cond} THEN {pick(name, value)}" for name, cond, value in _VALUE_RULES)
    return f"CASE {whens} ELSE {otherwise} END"


def current_verdicts_sql(hide: bool, restrict: str = "") -> str:
    """Common table expressions ending in ``eff``: one row per current verdict with its
    effective value (``value``), its team (``grp``), its paper, its provenance level and
    ``below_minimum`` (1: the judge's ``verified`` counts as ``inconclusive`` only because its
    level is below ``min_provenance_verified``). ``restrict`` is an extra
    condition on the logbooks considered (``l``, ``p``), e.g. one paper: it must keep or drop
    whole (paper, participant) groups, so the newest revision stays the newest."""
    hidden = ("AND p.id NOT IN :hidden " if hide else "") + restrict
    return f"""
    latest_logbook AS (
        {latest_logbook_sql(hidden)}
    ),
    latest_verdict AS (
        SELECT MAX(v.id) AS id
        FROM verdicts v JOIN latest_logbook ll ON ll.id = v.logbook_id
        GROUP BY v.logbook_id, v.claim_id
    ),
    last_edit AS (
        SELECT e.verdict_id, MAX(e.id) AS id
        FROM verdict_edits e JOIN latest_verdict lv ON lv.id = e.verdict_id
        GROUP BY e.verdict_id
    ),
    eff AS (
        SELECT v.id AS verdict_id, v.claim_id, v.logbook_id, l.paper_id, l.participant_id,
               CASE WHEN pt.team IS NOT NULL AND pt.team_confirmed THEN 'team:' || pt.team
                    ELSE 'participant:' || pt.handle END AS grp, v.provenance,
               CASE WHEN e.id IS NOT NULL THEN 1 ELSE 0 END AS edited,
               {_case(lambda rule, value: value, "v.verdict")} AS value,
               {_case(lambda rule, value: "1" if rule == "level" else "0", "0")} AS below_minimum
        FROM latest_verdict lv
        JOIN verdicts v ON v.id = lv.id
        JOIN claims c ON c.id = v.claim_id AND c.status = 'active'
        JOIN logbooks l ON l.id = v.logbook_id
        JOIN participants pt ON pt.id = l.participant_id
        LEFT JOIN last_edit le ON le.verdict_id = v.id
        LEFT JOIN verdict_edits e ON e.id = le.id
    )"""


def open_registration(ctx: ChallengeContext) -> int:
    """1 when anyone may register (``registration = "open"``): unvouched participants' verdicts
    are then shown, not counted (see the module docstring)."""
    return int(ctx.settings.registration == "open")


def hidden_papers(ctx: ChallengeContext, now: datetime | None = None) -> list[int]:
    """Papers whose verdicts are still private: the anti-herding window (``verdict_window_hours``
    after the paper's first logbook) has not closed."""
    hours = ctx.settings.verdict_window_hours
    if hours <= 0:
        return []
    cutoff = (now or datetime.now(UTC)) - timedelta(hours=hours)
    with ctx.store.session() as session:
        rows = session.execute(
            select(Logbook.paper_id, func.min(Logbook.submitted_at))
            .join(Paper, Paper.id == Logbook.paper_id)
            .where(Paper.challenge_id == ctx.challenge_id)
            .group_by(Logbook.paper_id)
        ).all()
    out = []
    for paper_id, first in rows:
        first_at = first if first.tzinfo else first.replace(tzinfo=UTC)
        if first_at > cutoff:
            out.append(paper_id)
    return sorted(out)


def query_params(
    ctx: ChallengeContext, hidden: Sequence[int], papers: Sequence[int] | None = None
) -> dict[str, Any]:
    """The parameters of :func:`current_verdicts_sql` (and of a ``:papers`` filter)."""
    params: dict[str, Any] = {
        "challenge": ctx.challenge_id,
        "accepted": accepted_levels(ctx.settings.min_provenance_verified),
        "open_registration": open_registration(ctx),
    }
    if hidden:
        params["hidden"] = list(hidden)
    if papers is not None:
        params["papers"] = list(papers) or [-1]
    return params


def statement(body: str, *expanding: str) -> Any:
    """``text(body)`` with the list parameters it uses (``accepted``, ``hidden``, ``papers``
    and any named in ``expanding``) bound as expanding ``IN`` lists."""
    stmt = text(body)
    for key in ("accepted", "hidden", "papers", *expanding):
        if f":{key}" in body:
            stmt = stmt.bindparams(bindparam(key, expanding=True))
    return stmt


def current_verdicts_query(
    ctx: ChallengeContext,
    select_sql: str,
    *,
    public: bool,
    restrict: str = "",
    params: dict[str, Any] | None = None,
    expanding: Sequence[str] = (),
) -> tuple[Any, dict[str, Any]]:
    """A statement and its parameters: ``select_sql`` over ``eff`` (the current verdicts) and its
    steps, with ``restrict`` pushed down to the logbooks (see :func:`current_verdicts_sql`).
    ``expanding`` names list parameters of ``params`` used as ``IN :name``."""
    hidden = hidden_papers(ctx) if public else []
    body = "WITH " + current_verdicts_sql(bool(hidden), restrict) + select_sql
    return statement(body, *expanding), {**query_params(ctx, hidden), **(params or {})}


@dataclass
class CurrentVerdict:
    """A current verdict with its stored rows (see the module docstring)."""

    verdict: Verdict
    logbook: Logbook
    participant: str  # handle
    team: str  # the group it counts for: team:<name> (confirmed) or participant:<handle>
    value: str  # the effective value
    last_edit: VerdictEdit | None


def current_verdicts(
    session: Session,
    ctx: ChallengeContext,
    claim_ids: Iterable[int] | None = None,
    *,
    public: bool = False,
) -> list[CurrentVerdict]:
    """The current verdicts (of the given claims, else all), in verdict id order, with their
    stored verdict, logbook and newest edit loaded."""
    where, params, expanding = "", {}, []
    if claim_ids is not None:
        params["claims"] = list(claim_ids) or [-1]
        where, expanding = " WHERE claim_id IN :claims", ["claims"]
    stmt, args = current_verdicts_query(
        ctx, f" SELECT verdict_id, value, grp FROM eff{where} ORDER BY verdict_id",
        public=public, params=params, expanding=expanding,
    )  # fmt: skip
    rows = [(int(r[0]), str(r[1]), str(r[2])) for r in session.execute(stmt, args)]
    if not rows:
        return []
    ids = [r[0] for r in rows]
    verdicts = {
        v.id: v
        for v in session.scalars(
            select(Verdict).where(Verdict.id.in_(ids)).options(selectinload(Verdict.edits))
        )
    }
    books = {
        b.id: b
        for b in session.scalars(
            select(Logbook)
            .where(Logbook.id.in_({v.logbook_id for v in verdicts.values()}))
            .options(defer(Logbook.manifest))  # loaded on first use only: manifests are large
        )
    }
    handles = dict(
        session.execute(
            select(Participant.id, Participant.handle).where(
                Participant.id.in_({b.participant_id for b in books.values()})
            )
        ).all()
    )
    out: list[CurrentVerdict] = []
    for verdict_id, value, team in rows:
        verdict = verdicts[verdict_id]
        book = books[verdict.logbook_id]
        out.append(
            CurrentVerdict(
                verdict=verdict, logbook=book, participant=handles.get(book.participant_id, ""),
                team=team, value=value, last_edit=verdict.edits[-1] if verdict.edits else None,
            )
        )  # fmt: skip
    return out
