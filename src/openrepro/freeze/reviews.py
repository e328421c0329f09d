"""The rows of the frozen ``review_tasks`` and ``review_answers`` tables.

Reviewers are pseudonymised: ``reviewer-<n>``, numbered across the challenge in the order each
person first became a reviewer of a task (the store's row order), so that the same person has
the same pseudonym in every task and the frozen bytes stay the same. Their role in each task
(``self``, ``team``, ``organizer``, ``invited``) is kept: it says whether a judgement is
independent. The figures of each task are those the judge computes from its answers
(:func:`openrepro.evidence.human.evaluate_human`), with the same pseudonyms.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.claims.checks.records import Check
from openrepro.evidence.human import HumanReviews, evaluate_human
from openrepro.evidence.reviews import stored_reviews
from openrepro.store import Claim, Paper, Participant
from openrepro.store.tables_review import ReviewAnswerRow, ReviewerRow, ReviewTaskRow

__all__ = ["review_rows"]


def _pseudonyms(session: Session, cid: int) -> dict[str, str]:
    """Reviewer handle -> ``reviewer-<n>`` (see the module docstring)."""
    handles = session.scalars(
        select(Participant.handle)
        .join(ReviewerRow, ReviewerRow.participant_id == Participant.id)
        .where(Participant.challenge_id == cid)
        .order_by(ReviewerRow.id)
    ).all()
    out: dict[str, str] = {}
    for handle in handles:
        out.setdefault(handle, f"reviewer-{len(out) + 1}")
    return out


def _pseudonymised(reviews: HumanReviews, names: dict[str, str]) -> HumanReviews:
    return reviews.model_copy(
        update={"answers": [a.model_copy(update={"reviewer": names.get(a.reviewer, "reviewer-?")})
                            for a in reviews.answers]}
    )  # fmt: skip


def review_rows(session: Session, cid: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(review_tasks rows, review_answers rows) of the challenge ``cid``."""
    names = _pseudonyms(session, cid)
    found = session.execute(
        select(ReviewTaskRow, Paper.venue_id, Claim.key, Claim.check)
        .join(Claim, Claim.id == ReviewTaskRow.claim_id)
        .join(Paper, Paper.id == Claim.paper_id)
        .where(Paper.challenge_id == cid)
        .order_by(ReviewTaskRow.id)
    ).all()
    tasks: list[dict[str, Any]] = []
    answers: list[dict[str, Any]] = []
    cache: dict[int, dict[int, HumanReviews]] = {}
    for task, venue, key, check in found:
        by_claim = cache.setdefault(task.logbook_id, stored_reviews(session, task.logbook_id))
        figures: dict[str, Any] | None = None
        reviews = by_claim.get(task.claim_id)
        if check and reviews is not None and reviews.task == task.name:
            result = evaluate_human(Check.from_json(check), _pseudonymised(reviews, names))
            figures = result.model_dump(mode="json", exclude={"check", "description"})
        tasks.append({
            "task_id": task.id, "task": task.name, "logbook_id": task.logbook_id,
            "claim_id": task.claim_id, "paper": venue, "claim": key, "question": task.question,
            "scale": task.scale, "items": task.items, "seed": task.seed,
            "repeat_share": task.repeat_share, "figures": figures, "created_at": task.created_at,
        })  # fmt: skip
    rows = session.execute(
        select(ReviewAnswerRow, ReviewerRow.role, Participant.handle)
        .join(ReviewerRow, ReviewerRow.id == ReviewAnswerRow.reviewer_id)
        .join(Participant, Participant.id == ReviewerRow.participant_id)
        .where(Participant.challenge_id == cid)
        .order_by(ReviewAnswerRow.task_id, ReviewAnswerRow.reviewer_id, ReviewAnswerRow.slot)
    ).all()
    for a, role, handle in rows:
        answers.append({
            "task_id": a.task_id, "reviewer": names.get(handle, "reviewer-?"), "role": role,
            "slot": a.slot, "item": a.item, "shown_order": a.shown_order, "answer": a.answer,
            "repeat": a.repeat, "seconds": a.seconds, "answered_at": a.answered_at,
        })  # fmt: skip
    answers.sort(key=lambda r: (r["task_id"], r["reviewer"], r["slot"]))
    return tasks, answers
