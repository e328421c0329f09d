"""The board shows each claim's proposed checks beside its own, and an organizer accepts one with
the page's button (an API token in a form: the board runs no script) or the JSON API."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from openrepro.board import create_app
from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.claims.proposals import propose_check
from openrepro.claims.service import set_check
from openrepro.identity import register
from openrepro.papers import PaperRecord, import_papers
from openrepro.store import Claim, Participant

ABSTRACT = "After T steps the optimality gap of the averaged iterate is at most 0.01 on average."
GAP = {"relation": "bound", "subject": "gap", "quantities": [{"name": "gap"}],
       "comparator": "le", "constant": {"value": 0.01, "text": "0.01"}}  # fmt: skip


def test_proposals_beside_the_check_and_the_organizers_accept_button(
    challenge: ChallengeContext,
) -> None:
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="t1", title="Averaging", abstract=ABSTRACT)],
                  source="test")  # fmt: skip
    with challenge.store.session() as s:
        add_claim(s, challenge.challenge_id, "t1", text="The gap is at most 0.01.", kind="theory",
                  quotes=["the optimality gap of the averaged iterate is at most 0.01"],
                  editor="org", drafting="rules")  # fmt: skip
        set_check(s, challenge.challenge_id, "t1/C1", None, editor="org", reason="none")
    ana = register(challenge, "ana").token
    boss = register(challenge, "boss", role="organizer").token
    with challenge.store.session() as s:
        person = s.scalar(select(Participant).where(Participant.handle == "ana"))
        assert person is not None
        proposal = propose_check(s, challenge.challenge_id, person, "t1/C1", GAP).proposal_id
    board = TestClient(create_app(challenge, cache_seconds=0))
    page = board.get("/papers/t1").text
    assert "no check yet" in page and f'id="proposal-{proposal}"' in page
    assert "by ana" in page and "0.01" in page and f"/proposals/{proposal}/accept" in page
    listed = board.get("/api/v1/claims/t1/C1/proposals").json()
    assert [(p["id"], p["status"]) for p in listed] == [(proposal, "proposed")]

    # a participant's token is refused and nothing changes
    refused = board.post(f"/proposals/{proposal}/accept", data={"token": ana},
                         follow_redirects=False)  # fmt: skip
    assert refused.status_code == 403
    with challenge.store.session() as s:
        assert s.scalar(select(Claim.check)) is None
    done = board.post(f"/proposals/{proposal}/accept", data={"token": boss},
                      follow_redirects=False)  # fmt: skip
    assert done.status_code == 303 and done.headers["location"].startswith("/papers/t1#proposal")
    with challenge.store.session() as s:
        check = s.scalar(select(Claim.check))
        # the organizer's check now, saying whose proposal it was
        assert check is not None and check["origin"] == "organizer"
        assert check["note"] == f"accepted by organizer boss (proposal {proposal} of ana)"
    page = board.get("/papers/t1").text
    assert "(organizer)" in page and "organizer:boss" in page
    api = board.post(f"/api/v1/proposals/{proposal}/accept",
                     headers={"Authorization": f"Bearer {ana}"})  # fmt: skip
    assert api.status_code == 403
