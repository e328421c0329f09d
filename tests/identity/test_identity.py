"""Identity and roles on the store: tokens stored hashed, roles enforced, freeze state.

The board's HTTP surface is tested in tests/board and tests/security; these tests call the
identity service directly.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.errors import (
    AuthError,
    ConfigError,
    FrozenError,
    NotFoundError,
    PermissionDeniedError,
)
from openrepro.identity import (
    Actor,
    authenticate,
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
from openrepro.store import Participant


def test_a_token_authenticates_and_only_its_hash_is_stored(challenge: ChallengeContext) -> None:
    issued = register(challenge, "ada", name="Ada", team="lab")
    assert issued.token and issued.participant.handle == "ada"
    with challenge.store.session() as session:
        stored = session.scalar(select(Participant.token_hash).where(Participant.handle == "ada"))
    assert stored == hash_token(issued.token) and issued.token not in (stored or "")
    actor = authenticate(challenge, issued.token)
    assert (actor.handle, actor.role) == ("ada", "participant")
    assert authenticate(challenge, None).role == "anonymous"
    with pytest.raises(AuthError):
        authenticate(challenge, issued.token + "x")


def test_rotating_a_token_revokes_the_old_one(challenge: ChallengeContext) -> None:
    old = register(challenge, "ada").token
    ada = authenticate(challenge, old)
    new = rotate_token(challenge, "ada", actor=ada)
    assert new != old and authenticate(challenge, new).handle == "ada"
    with pytest.raises(AuthError):
        authenticate(challenge, old)
    with pytest.raises(NotFoundError):
        rotate_token(challenge, "nobody")


def test_roles_participants_act_only_as_themselves(challenge: ChallengeContext) -> None:
    ada = authenticate(challenge, register(challenge, "ada").token)
    register(challenge, "bo")
    with pytest.raises(PermissionDeniedError):
        register(challenge, "eve", role="organizer", actor=ada)
    with pytest.raises(PermissionDeniedError):
        register(challenge, "bo", actor=ada)  # an existing handle is not taken over
    with pytest.raises(PermissionDeniedError):
        rotate_token(challenge, "bo", actor=ada)
    require_self_or_organizer(ada, "ada")
    with pytest.raises(PermissionDeniedError):
        require_organizer(ada, "freeze")
    with pytest.raises(AuthError):
        require_organizer(Actor(), "freeze")
    with pytest.raises(ConfigError):
        register(challenge, "../root")
    assert [p.handle for p in list_participants(challenge)] == ["ada", "bo"]
    assert get_participant(challenge, "bo").has_token


def test_a_frozen_challenge_refuses_registration_until_reopened(
    challenge: ChallengeContext,
) -> None:
    ada = authenticate(challenge, register(challenge, "ada").token)
    with pytest.raises(PermissionDeniedError):
        set_frozen(challenge, actor=ada)
    set_frozen(challenge)
    with pytest.raises(FrozenError):
        ensure_writable(challenge)
    with pytest.raises(FrozenError):
        register(challenge, "bo")
    assert [p.handle for p in list_participants(challenge)] == ["ada"]
    reopen(challenge)
    ensure_writable(challenge)
    register(challenge, "bo")


def test_handles_are_unique_whatever_their_case(challenge: ChallengeContext) -> None:
    """Before: `Carol` and `carol` both registered, two identities one reader cannot tell
    apart."""
    register(challenge, "Carol", actor=Actor())
    for variant in ("carol", "CAROL", "cArOl"):
        for actor in (Actor(), None):  # self-registration and the organizer alike
            with pytest.raises(PermissionDeniedError, match="already registered as 'Carol'"):
                if actor is None:
                    register(challenge, variant)
                else:
                    register(challenge, variant, actor=actor)
    assert [p.handle for p in list_participants(challenge)] == ["Carol"]
    # the organizer may still re-issue the exact handle's token
    assert register(challenge, "Carol").participant.handle == "Carol"
