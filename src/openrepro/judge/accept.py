"""An organizer accepts checks, and learns which verdicts that made stale.

Accepting a participant's proposal (:func:`openrepro.claims.proposals.accept_proposal`) or a
model's draft (:func:`openrepro.claims.drafts.accept_draft`) makes it its claim's check, which
queues the claim's logbooks for judging again (:func:`openrepro.claims.service.set_check`).
:func:`accept_checks` does that for several at once, in the caller's transaction, and returns
with each the stored verdicts it made stale (:func:`openrepro.judge.stale.stale_verdicts`:
stale after it, not before): exactly those the queue's workers, or the next ``openrepro
judge``, judge again. ``claims check accept``, the API and the board's accept buttons all call
it.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from openrepro.claims.drafts import accept_draft
from openrepro.claims.proposals import ProposalView, accept_proposal
from openrepro.judge.stale import StaleVerdict, stale_verdicts
from openrepro.store.tables_checks import CheckDraft, CheckProposal

__all__ = ["AcceptReport", "AcceptedDraft", "AcceptedProposal", "accept_checks"]


class AcceptedProposal(ProposalView):
    """An accepted proposal, and the verdicts accepting it made stale."""

    stale: list[StaleVerdict] = Field(default_factory=list)


class AcceptedDraft(BaseModel):
    """An accepted model's draft (its claim), and the verdicts accepting it made stale."""

    draft: int
    claim: str
    stale: list[StaleVerdict] = Field(default_factory=list)


class AcceptReport(BaseModel):
    proposals: list[AcceptedProposal] = Field(default_factory=list)
    drafts: list[AcceptedDraft] = Field(default_factory=list)

    @property
    def stale(self) -> list[StaleVerdict]:
        """Every verdict the accepted checks made stale, in the order they were accepted."""
        return [*(v for p in self.proposals for v in p.stale),
                *(v for d in self.drafts for v in d.stale)]  # fmt: skip


def _made_stale(
    session: Session, challenge_id: int, claim_id: int | None, before: set[int]
) -> list[StaleVerdict]:
    if claim_id is None:
        return []
    session.flush()
    return [v for v in stale_verdicts(session, challenge_id, [claim_id])
            if v.verdict_id not in before]  # fmt: skip


def _stale_ids(session: Session, challenge_id: int, claim_id: int | None) -> set[int]:
    if claim_id is None:
        return set()
    return {v.verdict_id for v in stale_verdicts(session, challenge_id, [claim_id])}


def accept_checks(
    session: Session,
    challenge_id: int,
    *,
    proposals: Sequence[int] = (),
    drafts: Sequence[int] = (),
    editor: str,
) -> AcceptReport:
    """Accept ``proposals`` then ``drafts`` (ids) as their claims' checks, in ``session``'s
    transaction; each comes back with the verdicts it made stale. Errors as the single
    accepts raise them (not found, superseded, frozen): nothing is accepted then."""
    report = AcceptReport()
    for proposal_id in proposals:
        row = session.get(CheckProposal, proposal_id)
        claim_id = row.claim_id if row is not None else None
        before = _stale_ids(session, challenge_id, claim_id)
        view = accept_proposal(session, challenge_id, proposal_id, editor=editor)
        made = _made_stale(session, challenge_id, claim_id, before)
        report.proposals.append(AcceptedProposal(**dict(view), stale=made))
    for draft_id in drafts:
        draft = session.get(CheckDraft, draft_id)
        claim_id = draft.claim_id if draft is not None else None
        before = _stale_ids(session, challenge_id, claim_id)
        claim = accept_draft(session, challenge_id, draft_id, editor=editor)
        made = _made_stale(session, challenge_id, claim_id, before)
        report.drafts.append(AcceptedDraft(draft=draft_id, claim=claim, stale=made))
    return report
