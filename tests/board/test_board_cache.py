"""The board's page cache: a change drops only the pages it touches, aggregates are rebuilt in
the background, and values are built once however many ask at the same time."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import pytest
from board_fixtures import wait_built
from fastapi.testclient import TestClient
from outcome_store import build_outcome_store
from sqlalchemy import select

from openrepro.board import create_app
from openrepro.board.cache import PageCache
from openrepro.challenge import ChallengeContext
from openrepro.identity import set_frozen
from openrepro.store import Claim, Logbook, Paper, Participant, Verdict

CHECK_S = 0.05


def _wait(seconds: float = CHECK_S * 3) -> None:
    time.sleep(seconds)


def _new_verdict(ctx: ChallengeContext, venue_id: str, key: str, value: str) -> None:
    """A newer verdict, as the judge writes it, on ``venue_id``'s claim ``key``."""
    with ctx.store.session() as session:
        paper = session.scalar(select(Paper).where(Paper.venue_id == venue_id))
        assert paper is not None
        claim = session.scalar(select(Claim).where(Claim.paper_id == paper.id, Claim.key == key))
        book = session.scalar(select(Logbook).where(Logbook.paper_id == paper.id))
        assert claim is not None and book is not None
        session.add(Verdict(logbook_id=book.id, claim_id=claim.id, verdict=value,
                            rationale="[R?] again", judge_config="cfg-2",
                            provenance="self-recorded", created_at=datetime.now(UTC)))  # fmt: skip
        session.commit()


@pytest.fixture
def board(challenge: ChallengeContext) -> TestClient:
    build_outcome_store(challenge)
    return TestClient(create_app(challenge, cache_seconds=CHECK_S, aggregate_seconds=0))


def test_a_verdict_on_paper_a_keeps_paper_b_and_refreshes_a(
    board: TestClient, challenge: ChallengeContext
) -> None:
    cache: PageCache = board.app.state.cache  # type: ignore[attr-defined]
    a_before = board.get("/papers/P1-full").text
    assert 'id="outcome">fully reproduced' in a_before
    for path in ("/papers/P3-mixed", "/participants/carol", "/participants/alice", "/"):
        assert board.get(path).status_code == 200
    b_built = cache.built_at("paper:P3-mixed")
    carol_built = cache.built_at("participant:carol")
    assert b_built is not None and carol_built is not None

    _new_verdict(challenge, "P1-full", "C1", "falsified")
    _wait()
    a_after = board.get("/papers/P1-full").text  # the check runs here: A's page was dropped
    assert 'id="outcome">fully reproduced' not in a_after and "falsified" in a_after
    assert cache.built_at("paper:P3-mixed") == b_built  # B's page was not touched
    assert board.get("/papers/P3-mixed").text  # and is served from the cache
    assert cache.built_at("paper:P3-mixed") == b_built
    # alice wrote the logbook the verdict is on: her page goes; carol's waits for aggregates
    alice = cache.built_at("participant:alice")
    assert alice is None or alice > b_built


def test_a_dropped_page_is_rendered_again_in_the_background(
    board: TestClient, challenge: ChallengeContext
) -> None:
    cache: PageCache = board.app.state.cache  # type: ignore[attr-defined]
    board.get("/papers/P1-full")
    first = cache.built_at("paper:P1-full")
    _new_verdict(challenge, "P1-full", "C2", "falsified")
    _wait()
    board.get("/papers/P3-mixed")  # any request notices the change
    deadline = time.monotonic() + 10
    while cache.built_at("paper:P1-full") in (None, first) and time.monotonic() < deadline:
        time.sleep(0.02)
    rebuilt = cache.built_at("paper:P1-full")
    assert rebuilt is not None and first is not None and rebuilt > first  # built ahead
    page = cache.get("paper:P1-full", lambda tags: "not cached")
    assert page != "not cached" and "fully reproduced" not in page


def test_aggregate_pages_are_served_stale_then_rebuilt(
    board: TestClient, challenge: ChallengeContext
) -> None:
    def fully_reproduced(page: str) -> str:
        return page.split("Fully reproduced")[1].split("</tr>")[0]

    before = fully_reproduced(board.get("/").text)
    _new_verdict(challenge, "P1-full", "C1", "falsified")
    _wait()
    served = [fully_reproduced(board.get("/").text)]
    deadline = time.monotonic() + 15
    while served[-1] == before and time.monotonic() < deadline:
        time.sleep(0.05)
        served.append(fully_reproduced(board.get("/").text))
    assert served[0] == before  # the first answer after the change is the stale page
    assert served[-1] != before  # and the rebuilt one follows without waiting on a reader


def test_a_freeze_drops_every_page(board: TestClient, challenge: ChallengeContext) -> None:
    cache: PageCache = board.app.state.cache  # type: ignore[attr-defined]
    board.get("/papers/P3-mixed")
    board.get("/logbooks/1/content")
    assert cache.built_at("content:1") is not None
    set_frozen(challenge)
    _wait()
    board.get("/papers/P1-full")
    assert cache.built_at("paper:P3-mixed") is None and cache.built_at("content:1") is None


def test_a_new_participant_leaves_paper_pages(
    board: TestClient, challenge: ChallengeContext
) -> None:
    cache: PageCache = board.app.state.cache  # type: ignore[attr-defined]
    board.get("/papers/P3-mixed")
    built = cache.built_at("paper:P3-mixed")
    with challenge.store.session() as session:
        session.add(Participant(challenge_id=challenge.challenge_id, handle="zed", name=""))
        session.commit()
    _wait()
    board.get("/leaderboard")
    assert cache.built_at("paper:P3-mixed") == built


def test_concurrent_readers_share_one_build(challenge: ChallengeContext) -> None:
    cache = PageCache(challenge, seconds=60)
    cache.check()  # the journal's head (a build under way then is not kept)
    builds: list[int] = []
    gate = threading.Event()

    def build(tags: set[str]) -> str:
        builds.append(1)
        gate.wait(5)
        return "page"

    got: list[str] = []
    readers = [threading.Thread(target=lambda: got.append(cache.get("k", build))) for _ in range(8)]
    for reader in readers:
        reader.start()
    time.sleep(0.2)
    gate.set()
    for reader in readers:
        reader.join(10)
    assert got == ["page"] * 8 and len(builds) == 1
    cache.close()


def test_warm_builds_ahead_of_readers(challenge: ChallengeContext) -> None:
    cache = PageCache(challenge, seconds=60)
    cache.check()
    cache.warm((f"k{i}", lambda tags, i=i: f"page {i}") for i in range(20))
    wait_built(cache, 10, settle=0.05)
    assert all(cache.peek(f"k{i}") == f"page {i}" for i in range(20))
    assert cache.warmed == 20
    cache.close()


def test_warmed_board_serves_pages_nobody_asked_for(challenge: ChallengeContext) -> None:
    build_outcome_store(challenge)
    app = create_app(challenge, cache_seconds=60, warm=True)
    cache: PageCache = app.state.cache
    wait_built(cache, 60, settle=0.2)
    for key in ("home", "paper:P5-contested", "participant:alice", "papers?contested&id&"):
        assert cache.built_at(key) is not None, key
    assert TestClient(app).get("/healthz").json()["building"] == 0
    cache.close()


def test_credit_follows_the_papers_a_participant_worked_on(
    board: TestClient, challenge: ChallengeContext
) -> None:
    """A participant page is not a challenge-wide value: a verdict on P1 (alice's paper)
    rebuilds alice's page with her new credit and leaves carol's (no logbook on P1) alone."""
    cache: PageCache = board.app.state.cache  # type: ignore[attr-defined]

    def credit(handle: str) -> str:
        page = board.get(f"/participants/{handle}").text  # "credit <strong>4</strong> (4 verified,
        return page.split('id="credit">')[1].split("</p>")[0]  # 0 falsified)"

    before, carol = credit("alice"), credit("carol")
    carol_built = cache.built_at("participant:carol")
    _new_verdict(challenge, "P1-full", "C1", "falsified")
    _wait()
    board.get("/papers/P3-mixed")  # any request notices the change
    deadline = time.monotonic() + 10
    while credit("alice") == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert credit("alice") != before
    assert credit("carol") == carol and cache.built_at("participant:carol") == carol_built


def test_a_costly_stale_aggregate_waits_ten_times_its_cost(challenge: ChallengeContext) -> None:
    from openrepro.board.cache import AGGREGATE, COST_FACTOR

    cache = PageCache(challenge, seconds=60, aggregate_seconds=0)
    cache.check()
    builds: list[float] = []

    def costly(tags: set[str]) -> str:
        tags.add(AGGREGATE)
        time.sleep(0.1)
        builds.append(time.monotonic())
        return f"figure {len(builds)}"

    assert cache.value("figure", costly) == "figure 1"
    with cache._lock:  # what check() does on any write
        cache._apply({AGGREGATE})
    soon = time.monotonic()
    assert cache.value("figure", costly) == "figure 1"  # stale, served, not due yet
    time.sleep(0.2)
    assert cache.pending() == 0 and len(builds) == 1
    deadline = soon + COST_FACTOR * 0.1 + 10
    while len(builds) < 2 and time.monotonic() < deadline:
        cache.value("figure", costly)
        time.sleep(0.05)
    assert len(builds) == 2 and builds[1] - builds[0] >= COST_FACTOR * 0.1
    cache.close()


def test_a_change_finds_its_values_by_tag_after_evictions(challenge: ChallengeContext) -> None:
    """Values are found by tag, not by walking the cache: an evicted or replaced value leaves
    no stale index entry behind, and a change drops exactly the values it touches."""
    from openrepro.board.cache import AGGREGATE

    cache = PageCache(challenge, seconds=60, size=3)
    cache.check()

    def value(text: str, *tags: str):  # type: ignore[no-untyped-def]
        def build(found: set[str]) -> str:
            found.update(tags)
            return text

        return build

    cache.value("a", value("a", "paper:1"))
    cache.value("b", value("b", "paper:2"))
    cache.value("home", value("home", AGGREGATE))
    cache.value("c", value("c", "paper:1"))  # the cache holds 3: "a" (read least) goes
    assert cache.built_at("a") is None
    cache.close()  # nothing rebuilt in the background from here on
    with cache._lock:
        cache._apply({"paper:1"})
    assert cache.built_at("c") is None and cache.built_at("b") is not None
    assert cache.value("home", value("other")) == "home"  # stale, still served
    with cache._lock:
        assert cache._pages["home"].stale and "paper:1" not in cache._tagged
        assert cache._tagged == {"paper:2": {"b"}, AGGREGATE: {"home"}}
