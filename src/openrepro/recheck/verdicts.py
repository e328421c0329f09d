"""Current verdicts of a claim (as outcomes count them) and claim lookup by id."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from openrepro.challenge import ChallengeContext
from openrepro.claims.service import get_claim
from openrepro.errors import NotFoundError
from openrepro.store import Claim, Logbook, Paper, Participant, Verdict, VerdictEdit

__all__ = ["CurrentVerdict", "current_verdicts", "resolve_claim"]


@dataclass
class CurrentVerdict:
    verdict: Verdict
    logbook: Logbook
    participant: str
    value: str  # the effective value: the newest edit's, else the judge's
    last_edit: VerdictEdit | None


def _latest_logbooks(session: Session, ctx: ChallengeContext) -> dict[int, Logbook]:
    books = session.scalars(
        select(Logbook)
        .join(Paper, Paper.id == Logbook.paper_id)
        .where(Paper.challenge_id == ctx.challenge_id)
        .order_by(Logbook.id)
    ).all()
    newest: dict[tuple[int, int], Logbook] = {}
    for book in books:
        newest[(book.paper_id, book.participant_id)] = book
    return {book.id: book for book in newest.values()}


def current_verdicts(
    session: Session, ctx: ChallengeContext, claim_ids: Iterable[int] | None = None
) -> list[CurrentVerdict]:
    """The current verdicts (see the module docstring), of the given claims or all."""
    books = _latest_logbooks(session, ctx)
    if not books:
        return []
    query = (
        select(Verdict)
        .where(Verdict.logbook_id.in_(list(books)))
        .options(selectinload(Verdict.edits))  # one query for all edits, not one per verdict
        .order_by(Verdict.id)
    )
    if claim_ids is not None:
        query = query.where(Verdict.claim_id.in_(list(claim_ids)))
    newest: dict[tuple[int, int], Verdict] = {}
    for verdict in session.scalars(query):
        newest[(verdict.logbook_id, verdict.claim_id)] = verdict
    handles = {
        pid: handle for pid, handle in session.execute(select(Participant.id, Participant.handle))
    }
    out: list[CurrentVerdict] = []
    for verdict in newest.values():
        edit = verdict.edits[-1] if verdict.edits else None
        book = books[verdict.logbook_id]
        out.append(
            CurrentVerdict(
                verdict=verdict,
                logbook=book,
                participant=handles.get(book.participant_id, ""),
                value=edit.new_value if edit is not None else verdict.verdict,
                last_edit=edit,
            )
        )
    return out


def resolve_claim(session: Session, ctx: ChallengeContext, claim: str) -> tuple[Claim, Paper]:
    """A claim by its id ``<paper>/<key>`` (or its numeric row id)."""
    if claim.isdigit():
        row = session.get(Claim, int(claim))
        paper = session.get(Paper, row.paper_id) if row is not None else None
        if row is None or paper is None or paper.challenge_id != ctx.challenge_id:
            raise NotFoundError(f"no claim {claim}")
        return row, paper
    return get_claim(session, ctx.challenge_id, claim)
