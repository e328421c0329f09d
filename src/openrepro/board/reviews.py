"""The human review panel of a logbook page: each review task on the logbook, its reviewers
(role, answers, self-agreement, answers flagged too fast, one-sided answering), the agreement
between them (Cohen's kappa, Krippendorff's alpha) and the decision the judge takes from the
answers (:func:`openrepro.evidence.human.evaluate_human`, the same code and numbers)."""

from __future__ import annotations

from pydantic import BaseModel, Field
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims.checks.records import Check
from openrepro.evidence.human import HumanEvaluation, evaluate_human
from openrepro.evidence.reviews import stored_reviews
from openrepro.store import Claim, Paper
from openrepro.store.tables_review import ReviewTaskRow

__all__ = ["ReviewPanel", "review_panels"]


class ReviewPanel(BaseModel):
    task: str
    claim: str  # paper/key
    question: str
    scale: str
    items: int
    answers: int = 0
    decision: HumanEvaluation | None = None
    reviewer_roles: dict[str, str] = Field(default_factory=dict)


def review_panels(ctx: ChallengeContext, logbook_id: int) -> list[ReviewPanel]:
    """The review tasks of ``logbook_id`` with their figures (empty when there are none)."""
    with ctx.store.session() as session:
        tasks = session.execute(
            select(ReviewTaskRow, Paper.venue_id, Claim.key, Claim.check)
            .join(Claim, Claim.id == ReviewTaskRow.claim_id)
            .join(Paper, Paper.id == Claim.paper_id)
            .where(ReviewTaskRow.logbook_id == logbook_id, Paper.challenge_id == ctx.challenge_id)
            .order_by(ReviewTaskRow.id)
        ).all()
        if not tasks:
            return []
        reviews = stored_reviews(session, logbook_id)
    out: list[ReviewPanel] = []
    for task, venue, key, check in tasks:
        found = reviews.get(task.claim_id)
        mine = found if found is not None and found.task == task.name else None
        decision = evaluate_human(Check.from_json(check), mine) if check and mine else None
        out.append(
            ReviewPanel(task=task.name, claim=f"{venue}/{key}", question=task.question,
                        scale=task.scale, items=len(task.items),
                        answers=len(mine.answers) if mine else 0, decision=decision)
        )  # fmt: skip
    return out
