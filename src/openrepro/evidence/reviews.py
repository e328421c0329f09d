"""The stored answers of human review tasks, as :class:`~openrepro.evidence.human.HumanReviews`
for the judge (:func:`stored_reviews`), and when a logbook last got an answer
(:func:`answered_since`: a verdict older than the newest answer is judged again).

Reviewer names are the reviewers' handles; each claim of a logbook is decided from its newest
task (tasks are made per claim and logbook revision by :mod:`openrepro.review.stored`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from openrepro.evidence.human import HumanAnswer, HumanReviews
from openrepro.evidence.records import Pointer
from openrepro.store import Participant, Verdict
from openrepro.store.tables_review import ReviewAnswerRow, ReviewerRow, ReviewTaskRow

__all__ = ["answered_since", "newest_answers", "stored_reviews"]


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


def newest_answers(session: Session, logbook_id: int) -> dict[int, datetime]:
    """Claim row id -> when its review tasks on this logbook last got an answer."""
    return {
        claim: _naive(at)
        for claim, at in session.execute(
            select(ReviewTaskRow.claim_id, func.max(ReviewAnswerRow.answered_at))
            .join(ReviewAnswerRow, ReviewAnswerRow.task_id == ReviewTaskRow.id)
            .where(ReviewTaskRow.logbook_id == logbook_id)
            .group_by(ReviewTaskRow.claim_id)
        ).all()
    }


def _naive(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def answered_since(session: Session, logbook_ids: Iterable[int], config: str) -> set[int]:
    """Of ``logbook_ids``, those with a review answer newer than one of their verdicts under
    ``config`` (so that the new answers reach a verdict)."""
    wanted = list(logbook_ids)
    if not wanted:
        return set()
    newest = dict(
        session.execute(
            select(ReviewTaskRow.logbook_id, func.max(ReviewAnswerRow.answered_at))
            .join(ReviewAnswerRow, ReviewAnswerRow.task_id == ReviewTaskRow.id)
            .where(ReviewTaskRow.logbook_id.in_(wanted))
            .group_by(ReviewTaskRow.logbook_id)
        ).all()
    )
    if not newest:
        return set()
    oldest = dict(
        session.execute(
            select(Verdict.logbook_id, func.min(Verdict.created_at))
            .where(Verdict.logbook_id.in_(list(newest)), Verdict.judge_config == config)
            .group_by(Verdict.logbook_id)
        ).all()
    )
    return {
        book
        for book, at in newest.items()
        if book not in oldest or _naive(oldest[book]) < _naive(at)
    }
