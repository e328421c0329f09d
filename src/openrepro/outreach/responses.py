"""Recording the authors' responses to findings (read by :mod:`openrepro.outcomes.responses`)."""

from __future__ import annotations

from openrepro.challenge import ChallengeContext
from openrepro.claims.service import get_claim
from openrepro.errors import ConfigError
from openrepro.identity import LOCAL_ORGANIZER, Actor, ensure_writable, require_organizer
from openrepro.outcomes.responses import RESPONSES, AuthorResponseView, response_view
from openrepro.store.tables_organizer import AuthorResponse

__all__ = ["record_response"]


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
        return response_view(stored, paper, row)
