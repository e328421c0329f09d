"""Registration policies (open, invite, approval, oauth) through the API: a sock puppet needs
what the policy asks for, so it can no longer move a claim's consensus by registering."""

from __future__ import annotations

from pathlib import Path

import pytest
from board_fixtures import tarball
from fastapi.testclient import TestClient
from test_bundle import make_bundle
from test_teams import _consensus, _setup, _verdict

from openrepro.board import create_app
from openrepro.challenge import ChallengeContext
from openrepro.errors import PermissionDeniedError
from openrepro.identity import (
    LOCAL_ORGANIZER,
    Actor,
    create_invite,
    get_participant,
    register,
    set_team,
)

API = "/api/v1"


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _submit(client: TestClient, token: str, archive: Path) -> int:
    with archive.open("rb") as fh:
        reply = client.post(f"{API}/logbooks", files={"file": ("l.tar.gz", fh)},
                            headers=_auth(token))  # fmt: skip
    return reply.status_code


def test_invite_policy(challenge: ChallengeContext, tmp_path: Path) -> None:
    challenge.settings.registration = "invite"
    client = TestClient(create_app(challenge, cache_seconds=0))
    reply = client.post(f"{API}/participants", json={"handle": "puppet"})
    assert reply.status_code == 403 and "invite code" in reply.json()["error"]["message"]
    reply = client.post(f"{API}/participants", json={"handle": "puppet", "invite": "inv_guess"})
    assert reply.status_code == 403
    boss = register(challenge, "boss", role="organizer").token
    code = client.post(f"{API}/invites", json={"uses": 1}, headers=_auth(boss)).json()["code"]
    reply = client.post(f"{API}/participants", json={"handle": "ada", "invite": code})
    assert reply.status_code == 201, reply.text
    assert get_participant(challenge, "ada").identity_source == "invite"
    again = client.post(f"{API}/participants", json={"handle": "puppet", "invite": code})
    assert again.status_code == 403 and "used-up" in again.json()["error"]["message"]
    two = create_invite(challenge, uses=2)
    for handle in ("b1", "b2"):
        assert client.post(f"{API}/participants",
                           json={"handle": handle, "invite": two}).status_code == 201  # fmt: skip
    assert (
        client.post(f"{API}/participants", json={"handle": "b3", "invite": two}).status_code == 403
    )


def test_approval_policy(challenge: ChallengeContext, tmp_path: Path) -> None:
    challenge.settings.registration = "approval"
    _setup(challenge)
    client = TestClient(create_app(challenge, cache_seconds=0))
    reply = client.post(f"{API}/participants", json={"handle": "puppet"})
    assert reply.status_code == 201 and reply.json()["participant"]["status"] == "pending"
    token = reply.json()["token"]
    me = client.get(f"{API}/me", headers=_auth(token))
    assert me.status_code == 401 and "approval" in me.json()["error"]["message"]
    archive = tarball(make_bundle(tmp_path / "b", participant="puppet"), tmp_path / "l.tar.gz")
    assert _submit(client, token, archive) == 401
    boss = register(challenge, "boss", role="organizer").token
    reply = client.post(f"{API}/participants/puppet/approve", headers=_auth(boss))
    assert reply.status_code == 200 and reply.json()["status"] == "active"
    assert client.get(f"{API}/me", headers=_auth(token)).json()["handle"] == "puppet"


def test_oauth_policy_refuses_plain_registration(challenge: ChallengeContext) -> None:
    challenge.settings.registration = "oauth"
    client = TestClient(create_app(challenge, cache_seconds=0))
    reply = client.post(f"{API}/participants", json={"handle": "puppet"})
    assert reply.status_code == 403 and "/auth/login" in reply.json()["error"]["message"]
    # a request cannot claim to come from the login
    reply = client.post(f"{API}/participants",
                        json={"handle": "puppet", "identity_source": "hf-oauth"})  # fmt: skip
    assert reply.status_code in (403, 422)
    assert register(challenge, "ada").participant.status == "active"  # organizers still can


@pytest.mark.parametrize("policy", ["invite", "approval", "oauth"])
def test_a_sock_puppet_cannot_move_consensus(challenge: ChallengeContext, policy: str) -> None:
    """The attack, after the team fix: one more account registered for the purpose. Under any
    policy but `open` the account cannot register, or cannot act until approved."""
    challenge.settings.registration = policy
    _setup(challenge)
    register(challenge, "victim")
    _verdict(challenge, "victim", "verified")
    before = _consensus(challenge)
    client = TestClient(create_app(challenge, cache_seconds=0))
    reply = client.post(f"{API}/participants", json={"handle": "puppet", "team": "x"})
    if reply.status_code == 201:  # approval: a pending account, whose token does nothing
        token = reply.json()["token"]
        assert client.get(f"{API}/me", headers=_auth(token)).status_code == 401
    else:
        assert reply.status_code == 403
        with pytest.raises(PermissionDeniedError):
            register(challenge, "puppet2", actor=Actor(handle="puppet2", role="participant"))
    assert _consensus(challenge) == before == ("verified", 1, 0)


def test_under_open_registration_a_sock_puppet_is_shown_not_counted(
    challenge: ChallengeContext,
) -> None:
    """Before: under the default `open` policy one sock puppet turned a verified claim into
    contested (and halved two participants' credit). A self-registered participant without a
    confirmed team is now shown, not counted."""
    from openrepro.outcomes import current_verdicts

    assert challenge.settings.registration == "open"
    _setup(challenge)
    register(challenge, "victim")  # registered by an organizer: vouched for
    _verdict(challenge, "victim", "verified")
    client = TestClient(create_app(challenge, cache_seconds=0))
    reply = client.post(f"{API}/participants", json={"handle": "puppet"})
    assert reply.status_code == 201  # anyone may register...
    assert get_participant(challenge, "puppet").identity_source == ""
    _verdict(challenge, "puppet", "falsified")
    assert _consensus(challenge) == ("verified", 1, 0)  # ...but moves nothing
    with challenge.store.session() as session:  # shown: the judge's value is kept beside it
        values = {(c.participant, c.verdict.verdict, c.value)
                  for c in current_verdicts(session, challenge)}  # fmt: skip
    assert ("puppet", "falsified", "inconclusive") in values
    # under any other policy a registration was checked: it counts as it is
    challenge.settings.registration = "invite"
    assert _consensus(challenge) == ("contested", 1, 1)
    challenge.settings.registration = "open"
    assert _consensus(challenge) == ("verified", 1, 0)
    # confirmed by an organizer into a team, the same participant counts
    set_team(challenge, "puppet", "lab", actor=LOCAL_ORGANIZER)
    assert get_participant(challenge, "puppet").team_confirmed
    assert _consensus(challenge) == ("contested", 1, 1)
