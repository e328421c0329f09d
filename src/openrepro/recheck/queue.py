"""The re-check queue: which claims need an organizer's adversarial second look, and why.

A claim is queued when (words as in docs/design.md §3):

* its consensus is ``falsified`` or ``contested`` (:func:`openrepro.outcomes.claim_consensus`);
* a current verdict on it carries ``testimony_disagrees``, ``unit_mismatch``, ``finite_horizon``
  or ``injection_suspected``;
* a logbook's testimony says it is falsified (read as the judge reads testimony stance);
* or it was re-checked or decided before (it stays listed with its status).

"Current" verdicts are the judge's newest verdict per (logbook, claim) on the newest revision of
each participant's logbook, with the newest :class:`~openrepro.store.VerdictEdit` applied, as in
outcomes. The queue is computed on each call, not stored; runs and decisions are.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from openrepro.challenge import ChallengeContext
from openrepro.claims.records import ClaimView
from openrepro.claims.service import claim_view
from openrepro.errors import ConfigError, NotFoundError
from openrepro.judge.engine import _testimony_stance
from openrepro.logbooks.records import LogbookRecord
from openrepro.outcomes.compute import claim_consensus
from openrepro.recheck.records import (
    FLAG_REASONS,
    REASONS,
    STATUSES,
    DecisionView,
    QueueEntry,
    QueueReason,
    RecheckReport,
)
from openrepro.recheck.verdicts import _latest_logbooks, current_verdicts, resolve_claim
from openrepro.store import Claim, Paper, Participant
from openrepro.store.tables_organizer import RecheckDecision, RecheckRun

__all__ = ["get_entry", "recheck_queue"]


def _reasons(session: Session, ctx: ChallengeContext) -> dict[int, list[QueueReason]]:
    found: dict[int, list[QueueReason]] = {}
    for row in claim_consensus(ctx):
        if row.consensus in ("falsified", "contested"):
            found.setdefault(row.claim_id, []).append(
                QueueReason(
                    reason="consensus_falsified"
                    if row.consensus == "falsified"
                    else "consensus_contested",
                    detail=f"{row.verified} verified, {row.falsified} falsified "
                    f"(independent teams)",
                )
            )
    active = {
        c.id: c
        for c in session.scalars(
            select(Claim)
            .join(Paper, Paper.id == Claim.paper_id)
            .where(Paper.challenge_id == ctx.challenge_id, Claim.status == "active")
            .options(selectinload(Claim.edits))
        )
    }
    for cur in current_verdicts(session, ctx):
        if cur.verdict.claim_id not in active:
            continue
        for flag in cur.verdict.flags:
            if flag in FLAG_REASONS:
                found.setdefault(cur.verdict.claim_id, []).append(
                    QueueReason(reason=flag, logbook_id=cur.logbook.id,
                                verdict_id=cur.verdict.id, participant=cur.participant,
                                detail=f"judge: {cur.verdict.verdict}")
                )  # fmt: skip
    # testimony: every newest logbook's prose, read as the judge reads it
    papers = {p.id: p.venue_id for p in session.scalars(select(Paper).where(
        Paper.challenge_id == ctx.challenge_id))}  # fmt: skip
    by_paper: dict[int, list[Claim]] = {}
    for claim in active.values():
        by_paper.setdefault(claim.paper_id, []).append(claim)
    handles = {
        pid: handle for pid, handle in session.execute(select(Participant.id, Participant.handle))
    }
    views: dict[int, ClaimView] = {}
    for book in _latest_logbooks(session, ctx).values():
        record = LogbookRecord.model_validate(book.manifest)
        if not record.testimony:
            continue
        for claim in by_paper.get(book.paper_id, []):
            if claim.id not in views:
                views[claim.id] = claim_view(claim, papers[book.paper_id])
            if _testimony_stance(record, views[claim.id]) == "negative":
                found.setdefault(claim.id, []).append(
                    QueueReason(reason="testimony_falsification", logbook_id=book.id,
                                participant=handles.get(book.participant_id),
                                detail="the logbook's prose says the claim is falsified")
                )  # fmt: skip
    return found


def _runs(session: Session, claim_ids: list[int]) -> dict[int, list[RecheckRun]]:
    out: dict[int, list[RecheckRun]] = {}
    if not claim_ids:
        return out
    for run in session.scalars(
        select(RecheckRun).where(RecheckRun.claim_id.in_(claim_ids)).order_by(RecheckRun.id)
    ):
        out.setdefault(run.claim_id, []).append(run)
    return out


def _decisions(session: Session, claim_ids: list[int]) -> dict[int, RecheckDecision]:
    out: dict[int, RecheckDecision] = {}
    if not claim_ids:
        return out
    for row in session.scalars(
        select(RecheckDecision)
        .where(RecheckDecision.claim_id.in_(claim_ids))
        .order_by(RecheckDecision.id)
    ):
        out[row.claim_id] = row  # the newest wins
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
    ctx: ChallengeContext, status: str | None = None, reason: str | None = None
) -> list[QueueEntry]:
    """Every queued claim (see the module docstring), by paper then claim; optionally only
    those with ``status`` (``open``, ``checked``, ``confirmed``, ``rejected``,
    ``needs-more-evidence``) or with a ``reason`` (see :data:`REASONS`)."""
    if status is not None and status not in STATUSES:
        raise ConfigError(f"unknown status {status!r}: one of {', '.join(STATUSES)}")
    if reason is not None and reason not in REASONS:
        raise ConfigError(f"unknown reason {reason!r}: one of {', '.join(REASONS)}")
    consensus = {row.claim_id: row.consensus for row in claim_consensus(ctx)}
    with ctx.store.session() as session:
        reasons = _reasons(session, ctx)
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
        runs = _runs(session, ids)
        decisions = _decisions(session, ids)
        currents: dict[int, list[int]] = {}
        for cur in current_verdicts(session, ctx, ids):
            currents.setdefault(cur.verdict.claim_id, []).append(cur.logbook.id)
        entries: list[QueueEntry] = []
        rows = session.execute(
            select(Claim, Paper).join(Paper, Paper.id == Claim.paper_id).where(Claim.id.in_(ids))
        ).all()
        for claim, paper in sorted(rows, key=lambda r: (r[1].id, r[0].id)):
            name = f"{paper.venue_id}/{claim.key}"
            claim_runs = runs.get(claim.id, [])
            decided = decisions.get(claim.id)
            last = report_view(claim_runs[-1], name) if claim_runs else None
            entry = QueueEntry(
                claim_id=claim.id, claim=name, paper_id=paper.id, paper=paper.venue_id,
                title=paper.title, text=claim.text, kind=claim.kind,
                consensus=consensus.get(claim.id, "unattempted"),
                status=decided.decision if decided else "checked" if claim_runs else "open",
                reasons=reasons.get(claim.id, []), logbooks=sorted(set(currents.get(claim.id, []))),
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
        row, paper = resolve_claim(session, ctx, claim)
        name = f"{paper.venue_id}/{row.key}"
        reports = [report_view(r, name) for r in _runs(session, [row.id]).get(row.id, [])]
    for entry in recheck_queue(ctx):
        if entry.claim_id == row.id:
            return entry, reports
    raise NotFoundError(f"claim {name} is not in the re-check queue")
