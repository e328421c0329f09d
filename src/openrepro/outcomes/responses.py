"""Authors' responses to findings, as read for stats, the board and the frozen dataset.

Organizers record them through :func:`openrepro.outreach.record_response`; what counts is the
newest response per claim.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args

from pydantic import BaseModel
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.store import Claim, Paper
from openrepro.store.tables_organizer import AuthorResponse

__all__ = [
    "RESPONSES",
    "AuthorResponseView",
    "Response",
    "author_response_counts",
    "author_responses",
    "response_view",
]

#: ``fixed``: already fixed (``version`` says in which version of the paper).
Response = Literal["agrees", "disputes", "fixed", "no-answer"]
RESPONSES: tuple[Response, ...] = get_args(Response)


class AuthorResponseView(BaseModel):
    """What a paper's authors answered about a finding (the newest answer per claim)."""

    id: int
    paper_id: int
    paper: str
    claim: str
    response: Response
    version: str | None = None
    note: str = ""
    recorded_by: str = ""
    created_at: datetime | None = None


def response_view(row: AuthorResponse, paper: Paper, claim: Claim) -> AuthorResponseView:
    return AuthorResponseView(
        id=row.id, paper_id=paper.id, paper=paper.venue_id, claim=f"{paper.venue_id}/{claim.key}",
        response=row.response,
        version=row.version, note=row.note, recorded_by=row.recorded_by,
        created_at=row.created_at,
    )  # fmt: skip


def author_responses(
    ctx: ChallengeContext, paper_ids: list[int] | None = None
) -> list[AuthorResponseView]:
    """The newest author response per claim (of the given papers), by paper then claim."""
    with ctx.store.session() as session:
        query = (
            select(AuthorResponse, Paper, Claim)
            .join(Paper, Paper.id == AuthorResponse.paper_id)
            .join(Claim, Claim.id == AuthorResponse.claim_id)
            .where(AuthorResponse.challenge_id == ctx.challenge_id)
            .order_by(AuthorResponse.id)
        )
        if paper_ids is not None:
            query = query.where(AuthorResponse.paper_id.in_(list(paper_ids)))
        newest: dict[int, AuthorResponseView] = {}
        for row, paper, claim in session.execute(query):
            newest[claim.id] = response_view(row, paper, claim)
    return sorted(newest.values(), key=lambda r: (r.paper_id, r.claim))


def author_response_counts(ctx: ChallengeContext) -> dict[str, int]:
    """Findings per newest author response (only responses that occur), in a fixed order."""
    counts: dict[str, int] = {}
    for view in author_responses(ctx):
        counts[view.response] = counts.get(view.response, 0) + 1
    return {r: counts[r] for r in RESPONSES if r in counts}
