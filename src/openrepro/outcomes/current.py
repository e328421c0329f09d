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
from here: :func:`current_query`, SQLAlchemy Core common table expressions whose columns are
read by name (a :class:`CurrentQuery`'s attributes: renaming one fails the type check where it
is read), and :func:`current_verdicts` for code that wants the stored rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    CTE,
    ColumnElement,
    and_,
    bindparam,
    case,
    func,
    literal,
    not_,
    select,
    text,
)
from sqlalchemy.orm import Session, aliased, defer, selectinload

from openrepro.challenge import ChallengeContext
from openrepro.evidence import PROVENANCE_LEVELS
from openrepro.logbooks.revisions import latest_logbook_select
from openrepro.store import Claim, Logbook, Paper, Participant, Verdict, VerdictEdit

__all__ = [
    "CurrentQuery",
    "CurrentRows",
    "CurrentVerdict",
    "accepted_levels",
    "challenge_query",
    "current_query",
    "current_verdicts",
    "effective_value",
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


def _rules(
    edit: Any, open_registration: bool, accepted: Sequence[str]
) -> list[tuple[str, ColumnElement[bool], ColumnElement[str]]]:
    """The rules of the effective value, in order: (name, condition, value) over
    :class:`Verdict`, :class:`Participant` and ``edit`` (the verdict's newest
    :class:`VerdictEdit`, outer-joined). The first whose condition holds gives the value; else
    the judge's own (``Verdict.verdict``)."""
    confirmed_team = and_(Participant.team.is_not(None), Participant.team_confirmed)
    inconclusive = literal("inconclusive")
    rules = [("edit", edit.id.is_not(None), edit.new_value)]
    if open_registration:
        rules.append(
            ("unvouched", and_(Participant.identity_source == "", not_(confirmed_team)),
             inconclusive)
        )  # fmt: skip
    rules.append(("provisional", Verdict.provisional.is_(True), inconclusive))
    below = and_(Verdict.verdict == "verified", Verdict.provenance.not_in(list(accepted)))
    rules.append(("level", below, inconclusive))
    return rules


def effective_value(
    edit: Any, open_registration: bool, accepted: Sequence[str]
) -> tuple[ColumnElement[str], ColumnElement[int]]:
    """The effective value of a verdict and ``below_minimum`` (1 where the provenance rule
    decides: a ``verified`` not counted only because its level is below the minimum), as SQL
    expressions over :class:`Verdict`, :class:`Participant` and ``edit`` (see :func:`_rules`)."""
    rules = _rules(edit, open_registration, accepted)
    value = case(*((cond, val) for _, cond, val in rules), else_=Verdict.verdict)
    below = case(*((cond, literal(int(name == "level"))) for name, cond, _ in rules), else_=0)
    return value, below


@dataclass(frozen=True)
class CurrentRows:
    """The current verdicts as SQLAlchemy Core common table expressions: ``latest_logbook``
    (``id``: the current logbooks) and ``eff``, one row per current verdict, whether computed
    from the base tables (:func:`current_query`) or read from the derived tables
    (:func:`openrepro.outcomes.derived.current_rows`). Read ``eff``'s columns through the
    attributes below: renaming one fails the type check where it is read."""

    latest_logbook: CTE
    eff: CTE

    @property
    def verdict_id(self) -> ColumnElement[int]:
        return self.eff.c.verdict_id

    @property
    def claim_id(self) -> ColumnElement[int]:
        return self.eff.c.claim_id

    @property
    def logbook_id(self) -> ColumnElement[int]:
        return self.eff.c.logbook_id

    @property
    def paper_id(self) -> ColumnElement[int]:
        return self.eff.c.paper_id

    @property
    def participant_id(self) -> ColumnElement[int]:
        return self.eff.c.participant_id

    @property
    def grp(self) -> ColumnElement[str]:
        """The group it counts for: ``team:<name>`` (confirmed) or ``participant:<handle>``."""
        return self.eff.c.grp

    @property
    def provenance(self) -> ColumnElement[str]:
        return self.eff.c.provenance

    @property
    def edited(self) -> ColumnElement[int]:
        return self.eff.c.edited

    @property
    def value(self) -> ColumnElement[str]:
        """The effective value."""
        return self.eff.c.value

    @property
    def below_minimum(self) -> ColumnElement[int]:
        return self.eff.c.below_minimum

    @property
    def columns(self) -> list[ColumnElement[Any]]:
        """Every column of ``eff``, in the order of ``outcome_verdicts``'s copy."""
        return [self.verdict_id, self.claim_id, self.logbook_id, self.paper_id,
                self.participant_id, self.grp, self.provenance, self.edited, self.value,
                self.below_minimum]  # fmt: skip


@dataclass(frozen=True)
class CurrentQuery(CurrentRows):
    """:class:`CurrentRows` computed from the base tables, with ``last_edit`` (``verdict_id``,
    ``id``: the newest edit of each latest verdict)."""

    last_edit: CTE


def current_query(
    challenge_id: int,
    *,
    accepted: Sequence[str],
    open_registration: bool,
    hidden: Sequence[int] = (),
    where: Sequence[ColumnElement[bool]] = (),
    verdict_ids: Sequence[int] | None = None,
) -> CurrentQuery:
    """The current verdicts of the challenge (see the module docstring), leaving out papers
    ``hidden``; ``where`` adds conditions on the logbooks considered (:class:`Logbook`,
    :class:`Paper`), e.g. one paper: they must keep or drop whole (paper, participant) groups,
    so the newest revision stays the newest. ``verdict_ids``: instead, ``eff``'s row of each
    of these verdicts (of the challenge) as if it were current, whatever its revision or claim
    status: the effective value an organizer's edit replaces."""
    conditions = [*where, *([Paper.id.not_in(list(hidden))] if hidden else [])]
    latest_logbook = latest_logbook_select(challenge_id, *conditions).cte("latest_logbook")
    if verdict_ids is None:
        latest_verdict = (
            select(func.max(Verdict.id).label("id"))
            .join(latest_logbook, latest_logbook.c.id == Verdict.logbook_id)
            .group_by(Verdict.logbook_id, Verdict.claim_id)
            .cte("latest_verdict")
        )
        claim_on = and_(Claim.id == Verdict.claim_id, Claim.status == "active")
    else:
        latest_verdict = (
            select(Verdict.id.label("id"))
            .join(Logbook, Logbook.id == Verdict.logbook_id)
            .join(Paper, Paper.id == Logbook.paper_id)
            .where(Paper.challenge_id == challenge_id, Verdict.id.in_(list(verdict_ids)))
            .cte("latest_verdict")
        )
        claim_on = Claim.id == Verdict.claim_id
    last_edit = (
        select(VerdictEdit.verdict_id, func.max(VerdictEdit.id).label("id"))
        .join(latest_verdict, latest_verdict.c.id == VerdictEdit.verdict_id)
        .group_by(VerdictEdit.verdict_id)
        .cte("last_edit")
    )
    edit = aliased(VerdictEdit, name="e")
    value, below = effective_value(edit, open_registration, accepted)
    team = literal("team:") + Participant.team
    grp = case(
        (and_(Participant.team.is_not(None), Participant.team_confirmed), team),
        else_=literal("participant:") + Participant.handle,
    )
    eff = (
        select(
            Verdict.id.label("verdict_id"),
            Verdict.claim_id.label("claim_id"),
            Verdict.logbook_id.label("logbook_id"),
            Logbook.paper_id.label("paper_id"),
            Logbook.participant_id.label("participant_id"),
            grp.label("grp"),
            Verdict.provenance.label("provenance"),
            case((edit.id.is_not(None), 1), else_=0).label("edited"),
            value.label("value"),
            below.label("below_minimum"),
        )
        .select_from(latest_verdict)
        .join(Verdict, Verdict.id == latest_verdict.c.id)
        .join(Claim, claim_on)
        .join(Logbook, Logbook.id == Verdict.logbook_id)
        .join(Participant, Participant.id == Logbook.participant_id)
        .outerjoin(last_edit, last_edit.c.verdict_id == Verdict.id)
        .outerjoin(edit, edit.id == last_edit.c.id)
        .cte("eff")
    )
    return CurrentQuery(latest_logbook=latest_logbook, last_edit=last_edit, eff=eff)


def challenge_query(
    ctx: ChallengeContext, *, public: bool, where: Sequence[ColumnElement[bool]] = ()
) -> CurrentQuery:
    """:func:`current_query` under the challenge's settings; ``public`` leaves out the papers
    inside their anti-herding window (:func:`hidden_papers`)."""
    return current_query(
        ctx.challenge_id,
        accepted=accepted_levels(ctx.settings.min_provenance_verified),
        open_registration=bool(open_registration(ctx)),
        hidden=hidden_papers(ctx) if public else (),
        where=where,
    )


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
    """The parameters of a statement in SQL text over the current verdicts (the consensus
    steps of :data:`~openrepro.outcomes.consensus.CONSENSUS_SQL`): the challenge, the accepted
    levels, open registration, ``:hidden`` papers and a ``:papers`` filter."""
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
    cur = challenge_query(ctx, public=public)
    query = select(cur.verdict_id, cur.value, cur.grp).order_by(cur.verdict_id)
    if claim_ids is not None:
        query = query.where(cur.claim_id.in_(list(claim_ids)))
    rows = [(int(r.verdict_id), str(r.value), str(r.grp)) for r in session.execute(query)]
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
