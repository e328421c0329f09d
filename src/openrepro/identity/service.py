"""Participants, roles, API tokens and the challenge's freeze state."""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime
from typing import Literal

from pydantic import BaseModel
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.errors import (
    AuthError,
    ConfigError,
    FrozenError,
    NotFoundError,
    PermissionDeniedError,
)
from openrepro.store import Challenge, Logbook, Participant
from openrepro.store.models import utcnow
from openrepro.store.tables_identity import Invite

__all__ = [
    "LOCAL_ORGANIZER",
    "Actor",
    "ParticipantView",
    "Registration",
    "admit",
    "authenticate",
    "check_not_frozen",
    "ensure_writable",
    "find_folded",
    "get_participant",
    "hash_token",
    "list_participants",
    "register",
    "reopen",
    "require_organizer",
    "require_self_or_organizer",
    "rotate_token",
    "set_frozen",
]

Role = Literal["participant", "organizer"]
_HANDLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")  # used with fullmatch: no "\n" at end
TOKEN_PREFIX = "orp_"


class Actor(BaseModel):
    """Who is acting: a participant, an organizer, or anonymous (``handle`` empty)."""

    handle: str = ""
    role: Role | Literal["anonymous"] = "anonymous"
    participant_id: int | None = None

    @property
    def is_organizer(self) -> bool:
        return self.role == "organizer"


#: The command line: whoever can open the store is an organizer of the challenge.
LOCAL_ORGANIZER = Actor(handle="organizer", role="organizer")


class ParticipantView(BaseModel):
    id: int
    handle: str
    name: str = ""
    team: str | None = None
    #: Confirmed by a confirmed member of the team or an organizer; until then the participant
    #: counts alone (their own group) in consensus.
    team_confirmed: bool = False
    status: Literal["active", "pending"] = "active"
    identity_source: str = ""
    role: Role = "participant"
    has_token: bool = False
    logbooks: int = 0
    created_at: datetime | None = None


class Registration(BaseModel):
    participant: ParticipantView
    token: str  # shown once; only its hash is stored


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def _view(row: Participant, logbooks: int = 0) -> ParticipantView:
    return ParticipantView(
        id=row.id, handle=row.handle, name=row.name, team=row.team, role=row.role,
        team_confirmed=bool(row.team and row.team_confirmed), status=row.status,
        identity_source=row.identity_source, has_token=row.token_hash is not None,
        logbooks=logbooks, created_at=row.created_at,
    )  # fmt: skip


def _find(session: Session, ctx: ChallengeContext, handle: str) -> Participant | None:
    return session.scalar(
        select(Participant).where(
            Participant.challenge_id == ctx.challenge_id, Participant.handle == handle
        )
    )


def find_folded(session: Session, ctx: ChallengeContext, handle: str) -> Participant | None:
    """The participant whose handle equals ``handle`` whatever the case: handles are unique
    case-insensitively (``Carol`` and ``carol`` are one handle), though each is stored and
    shown as it was registered."""
    return session.scalar(
        select(Participant)
        .where(Participant.challenge_id == ctx.challenge_id,
               func.lower(Participant.handle) == handle.lower())
        .order_by(Participant.id)
        .limit(1)
    )  # fmt: skip


def admit(
    ctx: ChallengeContext,
    session: Session,
    actor: Actor,
    *,
    invite: str | None = None,
    identity_source: str | None = None,
) -> tuple[str, str]:
    """The status (``active`` or ``pending``) and identity source of a new registration under
    the challenge's ``registration`` policy; an invite code is used up here (same transaction).
    ``identity_source`` is set by server-side flows only (the OAuth callback), never by a
    request's body."""
    if actor.is_organizer:  # vouched for: counts as independent under any policy
        return "active", identity_source or "organizer"
    if identity_source == "hf-oauth":
        return "active", "hf-oauth"
    policy = ctx.settings.registration
    if policy == "open":
        return "active", ""
    if policy == "approval":
        return "pending", ""
    if policy == "invite":
        if not invite:
            raise PermissionDeniedError("registration needs an invite code from an organizer")
        found = session.scalar(
            select(Invite)
            .where(Invite.challenge_id == ctx.challenge_id,
                   Invite.code_hash == hash_token(invite), Invite.uses_left > 0)
            .with_for_update()
        )  # fmt: skip
        if found is None:
            raise PermissionDeniedError("unknown or used-up invite code")
        found.uses_left -= 1
        return "active", "invite"
    raise PermissionDeniedError(
        "registration is through the Hugging Face login of the board (/auth/login)"
    )


def register(
    ctx: ChallengeContext,
    handle: str,
    *,
    role: Role = "participant",
    name: str = "",
    team: str | None = None,
    email: str | None = None,
    actor: Actor = LOCAL_ORGANIZER,
    invite: str | None = None,
    identity_source: str | None = None,
) -> Registration:
    """Register a handle (the participant's HF username where they have one) and issue a token.

    Anyone may register themselves as a participant; only an organizer creates organizers. A
    handle that already exists keeps its row (and its logbooks) and gets a fresh token only when
    an organizer asks; otherwise registering an existing handle is refused, whether or not it
    has a token yet (an organizer may have submitted for it with ``submit --as``).

    Who may register themselves is the challenge's ``registration`` policy
    (:mod:`openrepro.identity.policy`): ``open``, ``invite`` (``invite`` must be a valid code),
    ``approval`` (the participant is ``pending`` until an organizer approves) or ``oauth``
    (only through the Hugging Face login, which passes ``identity_source="hf-oauth"``). A team
    named by a participant is unconfirmed until a confirmed member or an organizer confirms it
    (:func:`openrepro.identity.teams.confirm_team`); one set by an organizer is confirmed.
    """
    if not _HANDLE.fullmatch(handle):
        raise ConfigError(
            f"invalid handle {handle!r}: letters, digits, '.', '_' or '-' (max 96 characters)"
        )
    if role == "organizer" and not actor.is_organizer:
        raise PermissionDeniedError("only an organizer can register an organizer")
    token = _new_token()
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        row = _find(session, ctx, handle)
        folded = row or find_folded(session, ctx, handle)
        if folded is not None and folded.handle != handle:
            raise PermissionDeniedError(
                f"handle {handle!r} is already registered as {folded.handle!r} "
                "(handles are unique whatever their case)"
            )
        if row is not None and not actor.is_organizer:
            raise PermissionDeniedError(f"handle {handle!r} is already registered")
        status, source = admit(ctx, session, actor, invite=invite, identity_source=identity_source)
        if row is None:
            row = Participant(challenge_id=ctx.challenge_id, handle=handle, status=status,
                              identity_source=source, team_confirmed=False)  # fmt: skip
            session.add(row)
        row.role = role if actor.is_organizer or row.role != "organizer" else row.role
        if name:
            row.name = name
        if team is not None:
            if (team or None) != row.team or actor.is_organizer:
                row.team_confirmed = bool(team) and actor.is_organizer
            row.team = team or None
        if email is not None:
            row.email = email or None
        row.token_hash = hash_token(token)
        session.flush()
        return Registration(participant=_view(row), token=token)


def rotate_token(ctx: ChallengeContext, handle: str, *, actor: Actor = LOCAL_ORGANIZER) -> str:
    """A new token for ``handle`` (the old one stops working at once)."""
    require_self_or_organizer(actor, handle)
    token = _new_token()
    with ctx.store.session() as session:
        row = _find(session, ctx, handle)
        if row is None:
            raise NotFoundError(f"no participant {handle!r}")
        row.token_hash = hash_token(token)
    return token


def authenticate(ctx: ChallengeContext, token: str | None) -> Actor:
    """The actor a token belongs to; no token is anonymous, an unknown token is an error."""
    if not token:
        return Actor()
    with ctx.store.session() as session:
        row = session.scalar(
            select(Participant).where(
                Participant.challenge_id == ctx.challenge_id,
                Participant.token_hash == hash_token(token),
            )
        )
        if row is None:
            raise AuthError("invalid API token")
        if row.status == "pending":
            raise AuthError(f"the registration of {row.handle!r} awaits an organizer's approval")
        return Actor(handle=row.handle, role=row.role, participant_id=row.id)


def require_organizer(actor: Actor, action: str = "do this") -> None:
    if actor.role == "anonymous":
        raise AuthError(f"an organizer's API token is required to {action}")
    if not actor.is_organizer:
        raise PermissionDeniedError(f"only organizers can {action}")


def require_self_or_organizer(actor: Actor, handle: str) -> None:
    if actor.role == "anonymous":
        raise AuthError("an API token is required")
    if not actor.is_organizer and actor.handle != handle:
        raise PermissionDeniedError(
            f"{actor.handle!r} cannot act as {handle!r}: participants act only as themselves"
        )


def get_participant(ctx: ChallengeContext, handle: str) -> ParticipantView:
    with ctx.store.session() as session:
        row = _find(session, ctx, handle)
        if row is None:
            raise NotFoundError(f"no participant {handle!r}")
        count = session.scalar(
            select(func.count(Logbook.id)).where(Logbook.participant_id == row.id)
        )
        return _view(row, int(count or 0))


def list_participants(ctx: ChallengeContext) -> list[ParticipantView]:
    with ctx.store.session() as session:
        counts = dict(
            session.execute(
                select(Logbook.participant_id, func.count(Logbook.id)).group_by(
                    Logbook.participant_id
                )
            ).all()
        )
        rows = session.scalars(
            select(Participant)
            .where(Participant.challenge_id == ctx.challenge_id)
            .order_by(Participant.handle)
        ).all()
        return [_view(r, int(counts.get(r.id, 0))) for r in rows]


def check_not_frozen(session: Session, challenge_id: int) -> None:
    """Raise :class:`FrozenError` when the challenge is frozen (read-only)."""
    frozen = session.scalar(select(Challenge.frozen_at).where(Challenge.id == challenge_id))
    if frozen is not None:
        raise FrozenError(
            f"the challenge was frozen at {frozen:%Y-%m-%d %H:%M} UTC and is read-only; "
            "an organizer can reopen it with `openrepro freeze --reopen`"
        )


def ensure_writable(ctx: ChallengeContext, session: Session | None = None) -> None:
    """Raise :class:`FrozenError` when the challenge is frozen (read-only)."""
    if session is not None:
        check_not_frozen(session, ctx.challenge_id)
        return
    with ctx.store.session() as own:
        check_not_frozen(own, ctx.challenge_id)


def set_frozen(ctx: ChallengeContext, *, actor: Actor = LOCAL_ORGANIZER) -> datetime:
    require_organizer(actor, "freeze the challenge")
    with ctx.store.session() as session:
        row = session.get(Challenge, ctx.challenge_id)
        assert row is not None
        row.frozen_at = row.frozen_at or utcnow()
        return row.frozen_at


def reopen(ctx: ChallengeContext, *, actor: Actor = LOCAL_ORGANIZER) -> None:
    require_organizer(actor, "reopen the challenge")
    with ctx.store.session() as session:
        row = session.get(Challenge, ctx.challenge_id)
        assert row is not None
        row.frozen_at = None
