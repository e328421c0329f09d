"""The board shows how strong each verified is: verified claims per provenance level on the
paper page, the home and stats pages and in the paper's JSON record, and verified verdicts below
``min_provenance_verified`` marked as not counted (not silently dropped)."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from outcome_store import build_outcome_store, raise_levels

from openrepro.board import create_app
from openrepro.challenge import ChallengeContext


@pytest.fixture
def board(challenge: ChallengeContext) -> TestClient:
    build_outcome_store(challenge)
    raise_levels(challenge)  # P1-full/C1 attested, P3-mixed/C1 replayed
    challenge.settings.min_provenance_verified = "replayed"
    return TestClient(create_app(challenge, cache_seconds=0))


def test_the_paper_page_shows_levels_and_what_does_not_count(board: TestClient) -> None:
    page = board.get("/papers/P1-full").text
    summary = re.search(r'<span id="levels">([^<]+)</span>', page)
    assert summary is not None
    assert summary.group(1) == (
        "1 verified: 1 attested; 1 verified only below the minimum (replayed), not counted: "
        "1 self-recorded"
    )
    matrix = page.split('id="matrix"')[1].split("</table>")[0]
    c1, c2 = matrix.split('id="claim-C2"')
    assert 'data-level="attested"' in c1 and "below-minimum" not in c1
    assert 'class="v-inconclusive">inconclusive' in c2
    assert re.search(r'class="flag below-minimum" data-level="self-recorded"', c2)
    assert "verified on self-recorded, below replayed: not counted" in c2
    # and alice's own cell says her verified is not counted
    assert 'class="flag not-counted"' in c2 and 'class="flag not-counted"' not in c1
    # alice's logbook and participant pages say so too (her C2), and only there
    (book,) = [b["id"] for b in board.get("/api/v1/papers/P1-full").json()["logbooks"]]
    assert board.get(f"/logbooks/{book}").text.count('class="flag not-counted"') == 1
    # P1-full/C2, P2-partial/C1 is bob's, P5-contested/C1: two of alice's
    assert board.get("/participants/alice").text.count('class="flag not-counted"') == 2
    assert board.get("/participants/carol").text.count('class="flag not-counted"') == 0
    # a paper with nothing verified and nothing below the minimum has no summary line
    assert 'id="levels"' not in board.get("/papers/P7-nothing").text


def test_the_api_paper_record_carries_the_levels(board: TestClient) -> None:
    body = board.get("/api/v1/papers/P1-full").json()
    record = body["outcome_record"]
    assert record["verified"] == 1
    assert record["verified_levels"] == {"attested": 1}
    assert record["below_minimum"] == {"self-recorded": 1}
    assert body["min_provenance_verified"] == "replayed"
    assert body["levels"] == {
        "C1": {"level": "attested", "below_minimum": None},
        "C2": {"level": None, "below_minimum": "self-recorded"},
    }
    stats = board.get("/api/v1/stats").json()
    assert stats["verified_levels"] == {"attested": 1, "replayed": 1, "self-recorded": 1}
    assert stats["below_minimum"] == {"self-recorded": 4}


def test_home_and_stats_pages_show_verified_claims_by_level(board: TestClient) -> None:
    page = board.get("/stats").text
    table = page.split('id="verified-levels"')[1].split("</table>")[0]
    rows = dict(
        (level, (int(n), int(below)))
        for level, n, below in re.findall(
            r'<tr data-level="([^"]+)"><td>[^<]+</td><td class="num">(\d+)</td>'
            r'<td class="num">(\d+)</td></tr>',
            table,
        )
    )
    assert rows == {"attested": (1, 0), "replayed": (1, 0), "reviewed": (0, 0),
                    "self-recorded": (1, 4), "testimony": (0, 0)}  # fmt: skip
    assert "<code>replayed</code>" in page
    home = board.get("/").text
    assert (
        "3 verified: 1 attested, 1 replayed, 1 self-recorded; 4 verified only below the minimum "
        "(replayed), not counted: 4 self-recorded" in home
    )
