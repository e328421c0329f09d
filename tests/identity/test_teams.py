"""Self-declared teams no longer break independence: a membership counts in consensus only once
a confirmed member of the team or an organizer confirms it, and sock puppets need the
challenge's registration policy to let them in. On SQLite and PostgreSQL."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from openrepro.board import create_app
from openrepro.challenge import ChallengeContext
from openrepro.identity import Actor, confirm_team, get_participant, register, set_team
from openrepro.outcomes import claim_consensus
from openrepro.store import Claim, Logbook, Paper, Participant, Verdict

API = "/api/v1"


def _setup(ctx: ChallengeContext) -> None:
    with ctx.store.session() as session:
        paper = Paper(challenge_id=ctx.challenge_id, venue_id="p1", title="Paper one")
        session.add(paper)
        session.flush()
        session.add(Claim(paper_id=paper.id, key="C1", text="accuracy is 0.87", kind="result"))


def _verdict(ctx: ChallengeContext, handle: str, value: str) -> None:
    """``handle``'s logbook on p1 judged ``value`` on C1 (as the judge would store it)."""
    with ctx.store.session() as session:
        person = session.scalar(select(Participant).where(Participant.handle == handle))
        paper = session.scalar(select(Paper).where(Paper.venue_id == "p1"))
        claim = session.scalar(select(Claim).where(Claim.key == "C1"))
        assert person is not None and paper is not None and claim is not None
        book = Logbook(paper_id=paper.id, participant_id=person.id, revision=f"r-{handle}",
                       format="bundle", manifest={})  # fmt: skip
        session.add(book)
        session.flush()
        session.add(Verdict(logbook_id=book.id, claim_id=claim.id, verdict=value,
                            judge_config="cfg", provenance="self-recorded"))  # fmt: skip


def _consensus(ctx: ChallengeContext) -> tuple[str, int, int]:
    (found,) = claim_consensus(ctx)
    return found.consensus, found.verified, found.falsified


def _self(handle: str) -> Actor:
    return Actor(handle=handle, role="participant")


def test_joining_the_victims_team_does_not_neutralise_its_verdict(
    challenge: ChallengeContext,
) -> None:
    """The attack: joining the victim's team (a team is self-declared at registration) turned
    its `verified` into `inconclusive`. Under a policy that checks registrations (under
    `open`, mallory would not count at all: test_policy)."""
    challenge.settings.registration = "approval"
    _setup(challenge)
    register(challenge, "victim", team="lab")  # the organizer set the team up: confirmed
    register(challenge, "colleague", team="lab")
    _verdict(challenge, "victim", "verified")
    _verdict(challenge, "colleague", "verified")
    assert _consensus(challenge) == ("verified", 1, 0)  # one confirmed team: one group
    register(challenge, "mallory", team="lab", actor=_self("mallory"))
    _verdict(challenge, "mallory", "falsified")
    # mallory counts alone: the victim's team keeps its verified; the claim is contested by an
    # independent participant, not silently neutralised
    assert _consensus(challenge) == ("contested", 1, 1)
    assert get_participant(challenge, "mallory").team_confirmed is False


def test_a_handle_named_like_a_team_is_not_that_team(challenge: ChallengeContext) -> None:
    challenge.settings.registration = "approval"  # a checked registration: "lab" counts
    _setup(challenge)
    register(challenge, "victim", team="lab")
    _verdict(challenge, "victim", "verified")
    register(challenge, "lab", actor=_self("lab"))  # a handle equal to the team's name
    _verdict(challenge, "lab", "falsified")
    assert _consensus(challenge) == ("contested", 1, 1)


def test_only_a_confirmed_member_or_an_organizer_confirms(challenge: ChallengeContext) -> None:
    _setup(challenge)
    register(challenge, "victim", team="lab")
    register(challenge, "mallory", team="lab", actor=_self("mallory"))
    register(challenge, "puppet", team="lab", actor=_self("puppet"))
    client = TestClient(create_app(challenge, cache_seconds=0))
    mallory = register(challenge, "mallory").token  # an organizer re-issues the token
    # an unconfirmed member cannot confirm another (nor itself)
    for target in ("puppet", "mallory"):
        reply = client.post(f"{API}/participants/{target}/confirm-team",
                            headers={"Authorization": f"Bearer {mallory}"})  # fmt: skip
        assert reply.status_code == 403, reply.text
    assert get_participant(challenge, "puppet").team_confirmed is False
    # a confirmed member can
    victim = register(challenge, "victim").token
    reply = client.post(f"{API}/participants/mallory/confirm-team",
                        headers={"Authorization": f"Bearer {victim}"})  # fmt: skip
    assert reply.status_code == 200 and reply.json()["team_confirmed"] is True
    # changing one's team drops the confirmation; an organizer's change is confirmed
    assert set_team(challenge, "mallory", "other", actor=_self("mallory")).team_confirmed is False
    assert set_team(challenge, "mallory", "other").team_confirmed is True
    assert confirm_team(challenge, "puppet").team_confirmed is True


def test_unconfirmed_teams_are_shown_as_such(challenge: ChallengeContext) -> None:
    _setup(challenge)
    register(challenge, "victim", team="lab")
    register(challenge, "mallory", team="lab", actor=_self("mallory"))
    _verdict(challenge, "mallory", "falsified")
    client = TestClient(create_app(challenge, cache_seconds=0))
    assert client.get(f"{API}/participants/mallory").json()["team_confirmed"] is False
    assert "unconfirmed" in client.get("/participants/mallory").text
    assert "unconfirmed" in client.get("/leaderboard").text
    credit = {c["handle"]: c for c in client.get(f"{API}/stats").json()["credit"]}
    assert credit["mallory"]["team_confirmed"] is False
