"""The re-check queue: which claims need an organizer's adversarial second look, and why.

A claim is queued when (words as in docs/design.md §3):

* its consensus is ``falsified`` or ``contested`` (:mod:`openrepro.outcomes.consensus`);
* a current verdict on it carries ``testimony_disagrees``, ``unit_mismatch``, ``finite_horizon``
  or ``injection_suspected``;
* a logbook's testimony says it is falsified (read as the judge reads testimony stance);
* or it was re-checked or decided before (it stays listed with its status).

"Current" verdicts are those of :mod:`openrepro.outcomes.current`, the ones outcomes count, read
with consensus and the testimony stance from the derived tables
(:mod:`openrepro.outcomes.derived`): store triggers mark each paper a write changes, and only
marked papers are rebuilt before the queue is read, so the queue follows judge writes,
overrides, re-check decisions and team confirmations without recomputing every verdict. The
public queue (the board's) leaves out papers inside their anti-herding window, as every other
public view does. Entries are assembled on each call; runs and decisions are stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import NamedTuple

from sqlalchemy import ColumnElement, Text, cast, or_, select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.claims.service import resolve_claim
from openrepro.errors import ConfigError, NotFoundError
from openrepro.outcomes import derived, hidden_papers
from openrepro.outcomes.compute import ConsensusValue, consensus_value_select
from openrepro.outcomes.derived import ConsensusRows
from openrepro.recheck.records import (
    FLAG_REASONS,
    REASONS,
    STATUSES,
    DecisionView,
    QueueEntry,
    QueueReason,
    RecheckReport,
)
from openrepro.store import Claim, Paper, Participant, Verdict
from openrepro.store.tables_organizer import RecheckDecision, RecheckRun
from openrepro.store.tables_outcomes import OutcomeLogbook, OutcomeTestimony

__all__ = [
    "FlaggedVerdict",
    "decision_view",
    "flagged_verdicts",
    "get_entry",
    "latest_decisions",
    "recheck_queue",
    "report_view",
]


def _fresh(ctx: ChallengeContext, public: bool) -> list[int]:
    """Refresh the derived tables; the papers a public view leaves out."""
    derived.ensure_fresh(ctx)
    return hidden_papers(ctx) if public else []


class FlaggedVerdict(NamedTuple):
    """A current verdict carrying a flag that queues its claim."""

    claim_id: int
    verdict_id: int
    logbook_id: int
    participant: str  # handle
    value: str  # the judge's value
    flags: list[str]


def flagged_verdicts(
    session: Session, ctx: ChallengeContext, *, public: bool
) -> list[FlaggedVerdict]:
    """Current verdicts carrying a flag that queues their claim (:data:`FLAG_REASONS`):
    narrowed in SQL by the flags' JSON text, then confirmed on the decoded list."""
    return _flagged(session, ctx, _fresh(ctx, public))


def _flagged(
    session: Session, ctx: ChallengeContext, hidden: Sequence[int]
) -> list[FlaggedVerdict]:
    cur = derived.current_rows(ctx, hidden)
    like = or_(*(cast(Verdict.flags, Text).like(f'%"{flag}"%') for flag in FLAG_REASONS))
    rows = session.execute(
        select(cur.claim_id, cur.verdict_id, cur.logbook_id, Participant.handle,
               Verdict.verdict, Verdict.flags)
        .select_from(cur.eff)
        .join(Verdict, Verdict.id == cur.verdict_id)
        .join(Participant, Participant.id == cur.participant_id)
        .where(like)
        .order_by(cur.verdict_id)
    )  # fmt: skip
    out = []
    for row in rows:
        flags = json.loads(row.flags) if isinstance(row.flags, str) else list(row.flags or [])
        if any(flag in FLAG_REASONS for flag in flags):
            out.append(FlaggedVerdict(claim_id=row.claim_id, verdict_id=row.verdict_id,
                                      logbook_id=row.logbook_id, participant=row.handle,
                                      value=row.verdict, flags=flags))  # fmt: skip
    return out


def _reasons(
    session: Session,
    ctx: ChallengeContext,
    disputed: list[ConsensusValue],
    hidden: list[int],
) -> dict[int, list[QueueReason]]:
    found: dict[int, list[QueueReason]] = {}
    for claim in disputed:
        if claim.value in ("falsified", "contested"):
            found.setdefault(claim.claim_id, []).append(
                QueueReason(
                    reason="consensus_falsified"
                    if claim.value == "falsified"
                    else "consensus_contested",
                    detail=f"{claim.verified} verified, {claim.falsified} falsified "
                    "(independent teams)",
                )
            )
    for flagged in _flagged(session, ctx, hidden):
        for flag in flagged.flags:
            if flag in FLAG_REASONS:
                found.setdefault(flagged.claim_id, []).append(
                    QueueReason(reason=flag, logbook_id=flagged.logbook_id,
                                verdict_id=flagged.verdict_id, participant=flagged.participant,
                                detail=f"judge: {flagged.value}")
                )  # fmt: skip
    # testimony: the current logbooks whose prose says a claim is falsified, as the judge reads
    # testimony (kept per paper by the derived tables)
    cur = derived.current_rows(ctx, hidden)
    t = OutcomeTestimony
    rows = session.execute(
        select(t.claim_id, t.logbook_id, Participant.handle)
        .join(cur.latest_logbook, cur.latest_logbook.c.id == t.logbook_id)
        .join(OutcomeLogbook, OutcomeLogbook.logbook_id == t.logbook_id)
        .join(Participant, Participant.id == OutcomeLogbook.participant_id)
        .order_by(t.logbook_id, t.claim_id)
    )
    for row in rows:
        found.setdefault(row.claim_id, []).append(
            QueueReason(reason="testimony_falsification", logbook_id=row.logbook_id,
                        participant=row.handle,
                        detail="the logbook's prose says the claim is falsified")
        )  # fmt: skip
    return found


def _consensus(
    session: Session, ctx: ChallengeContext, hidden: list[int],
    where: Callable[[ConsensusRows], ColumnElement[bool]],
) -> list[ConsensusValue]:  # fmt: skip
    """The consensus of the claims ``where`` selects (over the derived consensus), by paper
    then claim."""
    k = derived.consensus_rows(ctx, hidden)
    rows = session.execute(consensus_value_select(k).where(where(k)))
    return [ConsensusValue(**r._mapping) for r in rows]


def _runs(session: Session, claim_ids: list[int]) -> dict[int, list[RecheckRun]]:
    out: dict[int, list[RecheckRun]] = {}
    if not claim_ids:
        return out
    for run in session.scalars(
        select(RecheckRun).where(RecheckRun.claim_id.in_(claim_ids)).order_by(RecheckRun.id)
    ):
        out.setdefault(run.claim_id, []).append(run)
    return out


def _current_logbooks(
    session: Session, ctx: ChallengeContext, claim_ids: list[int], hidden: list[int]
) -> list[tuple[int, int]]:
    """(claim id, logbook id) of the current verdicts on the given claims."""
    if not claim_ids:
        return []
    cur = derived.current_rows(ctx, hidden)
    rows = session.execute(
        select(cur.claim_id, cur.logbook_id).where(cur.claim_id.in_(claim_ids))
    ).tuples()
    return [(int(c), int(b)) for c, b in rows]


def latest_decisions(
    session: Session, challenge_id: int, claim_ids: Sequence[int] | None = None
) -> dict[int, RecheckDecision]:
    """The newest re-check decision per claim (the one that counts), of the given claims or all
    of this challenge's."""
    query = (
        select(RecheckDecision)
        .where(RecheckDecision.challenge_id == challenge_id)
        .order_by(RecheckDecision.id)
    )
    if claim_ids is not None:
        if not claim_ids:
            return {}
        query = query.where(RecheckDecision.claim_id.in_(list(claim_ids)))
    out: dict[int, RecheckDecision] = {}
    for row in session.scalars(query):
        out[row.claim_id] = row  # ordered by id: the newest wins
    return out


def decision_view(row: RecheckDecision, claim: str) -> DecisionView:
    return DecisionView(
        id=row.id, claim=claim, decision=row.decision,
        reason=row.reason, editor=row.editor, verdict_ids=[int(v) for v in row.verdict_ids],
        created_at=row.created_at,
    )  # fmt: skip


def report_view(row: RecheckRun, claim: str) -> RecheckReport:
    return RecheckReport.model_validate(
        {
            "id": row.id, "claim": claim, "actor": row.actor, "model": row.model,
            "prompt_version": row.prompt_version, "findings": row.findings,
            "summary": row.summary, "usage": row.usage or {}, "created_at": row.created_at,
        }
    )  # fmt: skip


def recheck_queue(
    ctx: ChallengeContext,
    status: str | None = None,
    reason: str | None = None,
    *,
    public: bool = False,
) -> list[QueueEntry]:
    """Every queued claim (see the module docstring), by paper then claim; optionally only
    those with ``status`` (``open``, ``checked``, ``confirmed``, ``rejected``,
    ``needs-more-evidence``) or with a ``reason`` (see :data:`REASONS`). ``public``: what
    readers may see (no paper inside its anti-herding window)."""
    if status is not None and status not in STATUSES:
        raise ConfigError(f"unknown status {status!r}: one of {', '.join(STATUSES)}")
    if reason is not None and reason not in REASONS:
        raise ConfigError(f"unknown reason {reason!r}: one of {', '.join(REASONS)}")
    shut = _fresh(ctx, public)
    hidden = set(shut)
    with ctx.store.session() as session:
        disputed = _consensus(session, ctx, shut, lambda k: k.value.in_(["falsified", "contested"]))
        reasons = _reasons(session, ctx, disputed, shut)
        history = set(
            session.scalars(
                select(RecheckRun.claim_id).where(RecheckRun.challenge_id == ctx.challenge_id)
            )
        ) | set(
            session.scalars(
                select(RecheckDecision.claim_id).where(
                    RecheckDecision.challenge_id == ctx.challenge_id
                )
            )
        )
        ids = sorted(set(reasons) | history)
        consensus = {
            row.claim_id: row.value
            for row in _consensus(session, ctx, shut, lambda k: k.claim_id.in_(ids))
        }
        runs = _runs(session, ids)
        decisions = latest_decisions(session, ctx.challenge_id, ids)
        currents: dict[int, list[int]] = {}
        for claim_id, logbook_id in _current_logbooks(session, ctx, ids, shut):
            currents.setdefault(claim_id, []).append(logbook_id)
        entries: list[QueueEntry] = []
        rows = session.execute(
            select(Claim.id, Claim.key, Claim.text, Claim.kind, Paper.id, Paper.venue_id,
                   Paper.title)
            .join(Paper, Paper.id == Claim.paper_id)
            .where(Claim.id.in_(ids))
            .order_by(Paper.id, Claim.id)
        ).all()  # fmt: skip
        for claim_id, key, text, kind, paper_id, venue_id, title in rows:
            if paper_id in hidden:
                continue
            name = f"{venue_id}/{key}"
            claim_runs = runs.get(claim_id, [])
            decided = decisions.get(claim_id)
            last = report_view(claim_runs[-1], name) if claim_runs else None
            entry = QueueEntry(
                claim_id=claim_id, claim=name, paper_id=paper_id, paper=venue_id,
                title=title, text=text, kind=kind,
                consensus=consensus.get(claim_id, "unattempted"),
                status=decided.decision if decided else "checked" if claim_runs else "open",
                reasons=reasons.get(claim_id, []), logbooks=sorted(set(currents.get(claim_id, []))),
                runs=len(claim_runs), last_run_at=last.created_at if last else None,
                undermining=list(dict.fromkeys(f.check for f in last.undermining)) if last else [],
                decision=decision_view(decided, name) if decided else None,
            )  # fmt: skip
            if status is not None and entry.status != status:
                continue
            if reason is not None and reason not in entry.reason_codes:
                continue
            entries.append(entry)
    return entries


def get_entry(ctx: ChallengeContext, claim: str) -> tuple[QueueEntry, list[RecheckReport]]:
    """One queued claim and all its re-check runs (oldest first)."""
    with ctx.store.session() as session:
        row, paper = resolve_claim(session, ctx.challenge_id, claim)
        name = f"{paper.venue_id}/{row.key}"
        reports = [report_view(r, name) for r in _runs(session, [row.id]).get(row.id, [])]
    for entry in recheck_queue(ctx):
        if entry.claim_id == row.id:
            return entry, reports
    raise NotFoundError(f"claim {name} is not in the re-check queue")
