"""Registration policy of a challenge (the ``registration`` setting) and the organizer's side
of it: invite codes and approvals.

- ``open``: anyone registers a handle through the API (sock puppets are possible: independence
  between unconfirmed participants is only as good as this policy);
- ``invite``: a registration needs an invite code (``participants invite``); a code is shown
  once, kept as a sha256 hash, and has a number of uses;
- ``approval``: a registration gets a token at once but stays ``pending`` (the token is refused)
  until an organizer approves it (``participants approve``);
- ``oauth``: registration only through the board's Hugging Face login (:mod:`.oauth`), which
  takes the handle from the provider's verified username.

An organizer registers anyone under any policy (command line, or the API with an organizer's
token).
"""

from __future__ import annotations

import secrets

from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.errors import ConfigError, NotFoundError
from openrepro.identity.service import (
    LOCAL_ORGANIZER,
    Actor,
    ParticipantView,
    ensure_writable,
    get_participant,
    hash_token,
    list_participants,
    require_organizer,
)
from openrepro.store import Participant
from openrepro.store.tables_identity import Invite

__all__ = ["INVITE_PREFIX", "POLICIES", "approve", "create_invite", "pending_participants"]

POLICIES = ("open", "invite", "approval", "oauth")
INVITE_PREFIX = "inv_"


def create_invite(
    ctx: ChallengeContext, *, uses: int = 1, note: str = "", actor: Actor = LOCAL_ORGANIZER
) -> str:
    """A new invite code good for ``uses`` registrations (shown once; only its hash is kept)."""
    require_organizer(actor, "create invite codes")
    if uses < 1:
        raise ConfigError("an invite code needs at least one use")
    code = INVITE_PREFIX + secrets.token_urlsafe(18)
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        session.add(Invite(challenge_id=ctx.challenge_id, code_hash=hash_token(code),
                           uses_left=uses, note=note, created_by=actor.handle))  # fmt: skip
    return code


def approve(
    ctx: ChallengeContext, handle: str, *, actor: Actor = LOCAL_ORGANIZER
) -> ParticipantView:
    """Make a pending registration active (its token starts working)."""
    require_organizer(actor, "approve registrations")
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        row = session.scalar(
            select(Participant).where(
                Participant.challenge_id == ctx.challenge_id, Participant.handle == handle
            )
        )
        if row is None:
            raise NotFoundError(f"no participant {handle!r}")
        row.status = "active"
    return get_participant(ctx, handle)


def pending_participants(ctx: ChallengeContext) -> list[ParticipantView]:
    """Registrations awaiting an organizer's approval."""
    return [p for p in list_participants(ctx) if p.status == "pending"]
