"""Identity and roles: participants register a handle and get an API token; organizers admin.

Tokens are random (``secrets.token_urlsafe``), shown once, and stored as sha256 hashes only. The
command line acts with direct access to the store, so it is the organizer (:data:`LOCAL_ORGANIZER`);
the web API authenticates every write with a ``Bearer`` token. Who may register is the
challenge's policy (:mod:`.policy`); teams count for independence once confirmed (:mod:`.teams`).
"""

from __future__ import annotations

from openrepro.identity.policy import (
    POLICIES,
    approve,
    create_invite,
    pending_participants,
)
from openrepro.identity.service import (
    LOCAL_ORGANIZER,
    Actor,
    ParticipantView,
    Registration,
    admit,
    authenticate,
    check_not_frozen,
    ensure_writable,
    get_participant,
    hash_token,
    list_participants,
    register,
    reopen,
    require_organizer,
    require_self_or_organizer,
    rotate_token,
    set_frozen,
)
from openrepro.identity.teams import confirm_team, set_team

__all__ = [
    "LOCAL_ORGANIZER",
    "POLICIES",
    "Actor",
    "ParticipantView",
    "Registration",
    "admit",
    "approve",
    "authenticate",
    "check_not_frozen",
    "confirm_team",
    "create_invite",
    "ensure_writable",
    "get_participant",
    "hash_token",
    "list_participants",
    "pending_participants",
    "register",
    "reopen",
    "require_organizer",
    "require_self_or_organizer",
    "rotate_token",
    "set_frozen",
    "set_team",
]
