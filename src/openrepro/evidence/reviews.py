"""The stored answers of human review tasks, as :class:`~openrepro.evidence.human.HumanReviews`
for the judge (:func:`stored_reviews`); a verdict older than the newest answer for its claim is
judged again (:func:`openrepro.judge.stale.stale`).

Reviewer names are the reviewers' handles; each claim of a logbook is decided from its newest
task (tasks are made per claim and logbook revision by :mod:`openrepro.review.stored`).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.evidence.human import HumanAnswer, HumanReviews
from openrepro.evidence.records import Pointer
from openrepro.store import Participant
from openrepro.store.tables_review import ReviewAnswerRow, ReviewerRow, ReviewTaskRow

__all__ = ["stored_reviews"]


def stored_reviews(session: Session, logbook_id: int) -> dict[int, HumanReviews]:
    """Claim row id -> the answers of its newest review task on this logbook."""
    tasks = session.scalars(
        select(ReviewTaskRow)
        .where(ReviewTaskRow.logbook_id == logbook_id)
        .order_by(ReviewTaskRow.created_at, ReviewTaskRow.id)
    ).all()
    newest = {task.claim_id: task for task in tasks}
    out: dict[int, HumanReviews] = {}
    for claim_id, task in newest.items():
        rows = session.execute(
            select(ReviewAnswerRow, ReviewerRow.role, Participant.handle)
            .join(ReviewerRow, ReviewerRow.id == ReviewAnswerRow.reviewer_id)
            .join(Participant, Participant.id == ReviewerRow.participant_id)
            .where(ReviewAnswerRow.task_id == task.id)
            .order_by(ReviewAnswerRow.reviewer_id, ReviewAnswerRow.slot)
        ).all()
        answers = [
            HumanAnswer(reviewer=handle, role=role, slot=a.slot, item=a.item, answer=a.answer,
                        shown_answer=a.shown_answer, repeat=a.repeat, seconds=a.seconds)
            for a, role, handle in rows
        ]  # fmt: skip
        files = [
            Pointer(kind="file", path=item[side], sha256=item[f"{side}_sha256"])
            for item in task.items
            for side in ("a", "b")
            if item.get(side)
        ]
        out[claim_id] = HumanReviews(task=task.name, items=len(task.items), answers=answers,
                                     files=files)  # fmt: skip
    return out
