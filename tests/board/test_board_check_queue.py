"""The board's check queue (/checks/queue): the claims whose drafts disagree or that nobody
drafted, every draft in words, and the organizers' one-step actions (an API token in a form: the
board runs no script): accept a draft, or mark the claim human."""

from __future__ import annotations

from typing import Any

import pytest
from board_fixtures import live_board
from fastapi.testclient import TestClient

from openrepro.board import create_app
from openrepro.challenge import ChallengeContext
from openrepro.claims import add_claim
from openrepro.claims.checks import Check, Draft
from openrepro.claims.drafts import store_draft
from openrepro.claims.service import get_claim
from openrepro.identity import register
from openrepro.papers import PaperRecord, import_papers

ABSTRACT = (
    "The averaged iterate has a lower gap than the last iterate. "
    "Our proof extends to every smooth strongly convex objective."
)
ORDER = {"relation": "ordering", "subject": "averaged", "baselines": ["last"], "origin": "llm",
         "quantities": [{"name": "averaged"}, {"name": "last"}], "direction": "lower"}  # fmt: skip
FLIPPED = {**ORDER, "subject": "last", "baselines": ["averaged"],
           "quantities": [{"name": "last"}, {"name": "averaged"}]}  # fmt: skip


@pytest.fixture
def queued(challenge: ChallengeContext) -> tuple[ChallengeContext, int, int]:
    """Two disagreeing model drafts for t1/C1 and nothing drafted for t1/C2."""
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id="t1", title="Averaging", abstract=ABSTRACT)],
                  source="test")  # fmt: skip
    with challenge.store.session() as s:
        for quote in ("The averaged iterate has a lower gap than the last iterate",
                      "Our proof extends to every smooth strongly convex objective"):  # fmt: skip
            add_claim(s, challenge.challenge_id, "t1", text=quote, kind="theory", quotes=[quote],
                      editor="org", drafting="off")  # fmt: skip
        first = store_draft(s, challenge.challenge_id, "t1/C1", "model:Qwen2.5-72B",
                            Draft(check=Check.from_json(ORDER), rule="llm"))  # fmt: skip
        second = store_draft(s, challenge.challenge_id, "t1/C1", "model:Llama-3.3-70B",
                             Draft(check=Check.from_json(FLIPPED), rule="llm"))  # fmt: skip
    assert first.draft_id is not None and second.draft_id is not None
    return challenge, first.draft_id, second.draft_id


def test_the_queue_shows_disagreeing_drafts_and_an_organizer_resolves_them(
    queued: tuple[ChallengeContext, int, int],
) -> None:
    challenge, first_id, _ = queued
    ana = register(challenge, "ana").token
    boss = register(challenge, "boss", role="organizer").token
    board = TestClient(create_app(challenge, cache_seconds=0))
    page = board.get("/checks/queue").text
    assert '<span id="count">2</span>' in page
    assert "2 drafts disagree" in page and "nobody drafted a check" in page
    assert "averaged lower than last" in page and "last lower than averaged" in page
    assert f'action="/drafts/{first_id}/accept"' in page and "Qwen2.5-72B" in page

    refused = board.post(f"/drafts/{first_id}/accept", data={"token": ana},
                         follow_redirects=False)  # fmt: skip
    assert refused.status_code == 403
    done = board.post(f"/drafts/{first_id}/accept", data={"token": boss},
                      follow_redirects=False)  # fmt: skip
    assert done.status_code == 303 and done.headers["location"] == "/papers/t1"
    with challenge.store.session() as s:
        claim, _ = get_claim(s, challenge.challenge_id, "t1/C1")
        assert claim.check is not None and claim.check["origin"] == "organizer"
        assert claim.check["subject"] == "averaged"
        assert claim.check["note"] == (
            f"accepted by organizer boss (draft {first_id} by model:Qwen2.5-72B)"
        )
    human = board.post("/checks/queue/human", follow_redirects=False,
                       data={"claim": "t1/C2", "token": boss, "reason": "a proof"})  # fmt: skip
    assert human.status_code == 303 and human.headers["location"] == "/checks/queue"
    with challenge.store.session() as s:
        claim, _ = get_claim(s, challenge.challenge_id, "t1/C2")
        assert claim.check is not None and claim.check["relation"] == "human"
    assert '<span id="count">0</span>' in board.get("/checks/queue").text


def test_an_organizer_accepts_a_draft_from_the_queue_in_chromium(
    browser: Any, queued: tuple[ChallengeContext, int, int]
) -> None:
    challenge, first_id, _ = queued
    boss = register(challenge, "boss", role="organizer").token
    with live_board(challenge) as base:
        page = browser.new_page()
        page.goto(base + "/checks/queue")
        assert page.inner_text("#count") == "2"
        row = page.locator(f"#draft-{first_id}")
        assert "averaged lower than last" in row.inner_text()
        row.locator("input[name=token]").fill(boss)
        row.locator("button[type=submit]").click()
        page.wait_for_url(base + "/papers/t1")
        assert "averaged lower than last" in page.inner_text("body")
        page.goto(base + "/checks/queue")
        assert page.inner_text("#count") == "1"  # only the claim nobody drafted is left
    with challenge.store.session() as s:
        claim, _ = get_claim(s, challenge.challenge_id, "t1/C1")
        assert claim.check is not None and claim.check["origin"] == "organizer"
