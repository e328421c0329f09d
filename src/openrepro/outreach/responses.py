"""Authors' responses to findings: recorded by organizers, counted for stats and the freeze.

This module depends only on the store (not on the re-check queue), so that
:func:`openrepro.outcomes.compute_stats` can import it without an import cycle.
"""

from __future__ import annotations

from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims.service import get_claim
from openrepro.errors import ConfigError
from openrepro.identity import LOCAL_ORGANIZER, Actor, ensure_writable, require_organizer
from openrepro.outreach.records import RESPONSES, AuthorResponseView
from openrepro.store import Claim, Paper
from openrepro.store.tables_organizer import AuthorResponse

__all__ = ["author_response_counts", "author_responses", "record_response"]


def record_response(
    ctx: ChallengeContext,
    claim: str,
    response: str,
    *,
    version: str | None = None,
    note: str = "",
    actor: Actor = LOCAL_ORGANIZER,
) -> AuthorResponseView:
    """Record the authors' answer about a finding (``agrees``, ``disputes``, ``fixed`` with the
    paper's ``version``, ``no-answer``)."""
    require_organizer(actor, "record an author response")
    if response not in RESPONSES:
        raise ConfigError(f"unknown response {response!r}: one of {', '.join(RESPONSES)}")
    if response == "fixed" and not version:
        raise ConfigError("a `fixed` response needs the version of the paper (--version)")
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        row, paper = get_claim(session, ctx.challenge_id, claim)
        stored = AuthorResponse(challenge_id=ctx.challenge_id, paper_id=paper.id,
                                claim_id=row.id, response=response, version=version or None,
                                note=note, recorded_by=actor.handle)  # fmt: skip
        session.add(stored)
        session.flush()
        return _response_view(stored, paper, row)


def _response_view(row: AuthorResponse, paper: Paper, claim: Claim) -> AuthorResponseView:
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
            newest[claim.id] = _response_view(row, paper, claim)
    return sorted(newest.values(), key=lambda r: (r.paper_id, r.claim))


def author_response_counts(ctx: ChallengeContext) -> dict[str, int]:
    """Findings per newest author response (only responses that occur), in a fixed order."""
    counts: dict[str, int] = {}
    for view in author_responses(ctx):
        counts[view.response] = counts.get(view.response, 0) + 1
    return {r: counts[r] for r in RESPONSES if r in counts}
