"""Teams worth counting: a participant names a team, and the membership counts (for the
independence of consensus) only once confirmed by a confirmed member of that team or by an
organizer. Until then the participant is their own group: joining someone else's team cannot
merge (and so neutralise) their verdicts, and a team's first confirmation is an organizer's.

The consensus query (:mod:`openrepro.outcomes.compute`) groups by ``'team:' || team`` for a
confirmed membership and by ``'participant:' || handle`` otherwise (prefixed, so that a handle
can never equal a team's group).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.errors import AuthError, ConfigError, NotFoundError, PermissionDeniedError
from openrepro.identity.service import (
    LOCAL_ORGANIZER,
    Actor,
    ParticipantView,
    ensure_writable,
    get_participant,
)
from openrepro.store import Participant

__all__ = ["confirm_team", "set_team"]


def _row(session: Session, ctx: ChallengeContext, handle: str) -> Participant:
    row = session.scalar(
        select(Participant).where(
            Participant.challenge_id == ctx.challenge_id, Participant.handle == handle
        )
    )
    if row is None:
        raise NotFoundError(f"no participant {handle!r}")
    return row


def confirm_team(
    ctx: ChallengeContext, handle: str, *, actor: Actor = LOCAL_ORGANIZER
) -> ParticipantView:
    """Confirm ``handle``'s membership of the team it named: by an organizer, or by a
    participant whose own membership of that same team is confirmed."""
    if actor.role == "anonymous":
        raise AuthError("an API token is required to confirm a team member")
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        row = _row(session, ctx, handle)
        if not row.team:
            raise ConfigError(f"{handle!r} has named no team")
        if not actor.is_organizer:
            me = _row(session, ctx, actor.handle)
            if me.team != row.team or not me.team_confirmed:
                raise PermissionDeniedError(
                    f"only a confirmed member of team {row.team!r} or an organizer can confirm "
                    f"{handle!r}"
                )
        row.team_confirmed = True
    return get_participant(ctx, handle)


def set_team(
    ctx: ChallengeContext, handle: str, team: str | None, *, actor: Actor = LOCAL_ORGANIZER
) -> ParticipantView:
    """Name (or leave, with ``None``) a team: confirmed at once when an organizer sets it,
    else unconfirmed until :func:`confirm_team`."""
    if actor.role == "anonymous" or (not actor.is_organizer and actor.handle != handle):
        raise PermissionDeniedError("participants set only their own team")
    if team is not None and not 0 < len(team) <= 200:
        raise ConfigError("a team name has 1 to 200 characters")
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        row = _row(session, ctx, handle)
        row.team = team
        row.team_confirmed = team is not None and actor.is_organizer
    return get_participant(ctx, handle)
