"""Keyset pagination of the board's lists: /papers, /api/v1/papers and /leaderboard follow
opaque cursors that stay valid when rows are inserted before them; a bad cursor is a 400."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from outcome_store import build_outcome_store

from openrepro.board import create_app
from openrepro.board.cursor import anchored_page, decode_cursor, encode_cursor, keyset_page
from openrepro.challenge import ChallengeContext
from openrepro.errors import ConfigError
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import import_papers

ROWS = re.compile(r'<span class="muted">([^<]+)</span></td>')
NEXT = re.compile(r'href="([^"]+)" rel="next"')
PREV = re.compile(r'href="([^"]+)" rel="prev"')


def _add_papers(ctx: ChallengeContext, ids: list[str]) -> None:
    records = [PaperRecord(venue_id=v, title=f"Paper {v}") for v in ids]
    import_papers(ctx.store, ctx.challenge_id, records, source="test")


def _api_walk(board: TestClient, limit: int, **params: str) -> list[list[str]]:
    pages, cursor = [], ""
    while True:
        reply = board.get("/api/v1/papers", params={"limit": limit, "cursor": cursor, **params})
        assert reply.status_code == 200, reply.text
        body = reply.json()
        pages.append([p["venue_id"] for p in body["papers"]])
        if body["next"] is None:
            return pages
        cursor = body["next"]


@pytest.fixture
def board(challenge: ChallengeContext) -> TestClient:
    build_outcome_store(challenge)
    return TestClient(create_app(challenge, cache_seconds=0.05, aggregate_seconds=0))


def test_api_cursors_walk_every_paper_once(board: TestClient) -> None:
    pages = _api_walk(board, 3)
    flat = [v for page in pages for v in page]
    assert flat == sorted(flat) and len(flat) == len(set(flat)) == 10
    assert [len(p) for p in pages] == [3, 3, 3, 1]  # the last page says so: next is null
    assert _api_walk(board, 2, status="needs-recheck") == [
        ["P3-mixed", "P4-allfalse"],
        ["P5-contested"],
    ]


def test_api_cursor_survives_inserts_before_it(
    board: TestClient, challenge: ChallengeContext
) -> None:
    first = board.get("/api/v1/papers", params={"limit": 4}).json()
    assert [p["venue_id"] for p in first["papers"]] == ["P1-full", "P10-override", "P2-partial",
                                                        "P3-mixed"]  # fmt: skip
    _add_papers(challenge, ["A0-before", "A1-before", "P2-zz-before", "P35-after"])
    import time

    time.sleep(0.2)
    following = board.get("/api/v1/papers", params={"limit": 4, "cursor": first["next"]}).json()
    # the rows after P3-mixed, the new one after it included, none of the new ones before it
    assert [p["venue_id"] for p in following["papers"]] == ["P35-after", "P4-allfalse",
                                                            "P5-contested", "P6-toy"]  # fmt: skip
    assert following["total"] == 14 and following["offset"] == 7


def test_bad_cursors_are_clear_400s(board: TestClient) -> None:
    leaderboard_cursor = encode_cursor("leaderboard", ["alice"])
    for bad in ("zzz", "!!!", encode_cursor("papers", [])[:-2] + "@@", leaderboard_cursor):
        reply = board.get("/api/v1/papers", params={"cursor": bad})
        assert reply.status_code == 400, bad
        error = reply.json()["error"]
        assert error["type"] == "ConfigError" and "cursor" in error["message"]
    page = board.get("/papers", params={"cursor": "zzz"})
    assert page.status_code == 400 and "cursor" in page.text
    assert board.get("/leaderboard", params={"cursor": encode_cursor("leaderboard", ["nobody"])}
                     ).status_code == 400  # fmt: skip
    assert board.get("/api/v1/papers", params={"cursor": "x" * 2001}).status_code == 422


def test_html_paper_list_pages_by_cursor(board: TestClient, challenge: ChallengeContext) -> None:
    _add_papers(challenge, [f"Q{i:04d}" for i in range(450)])
    import time

    time.sleep(0.2)
    seen: list[list[str]] = []
    path: str | None = "/papers"
    pages: list[str] = []
    while path:
        html = board.get(path).text
        pages.append(html)
        seen.append(ROWS.findall(html))
        found = NEXT.search(html)
        path = found[1].replace("&amp;", "&") if found else None
    assert [len(s) for s in seen] == [200, 200, 60]
    flat = [v for s in seen for v in s]
    assert len(set(flat)) == 460 and flat == sorted(flat)
    assert '<span id="range">201–400</span>' in pages[1]
    back = PREV.search(pages[1])
    assert back and ROWS.findall(board.get(back[1].replace("&amp;", "&")).text) == seen[0]
    assert not PREV.search(pages[0]) and not NEXT.search(pages[2])
    # a filter keeps its cursor pages to itself
    attempted = board.get("/papers?status=attempted").text
    assert not NEXT.search(attempted) and len(ROWS.findall(attempted)) == 9


def test_leaderboard_pages_by_cursor(
    challenge: ChallengeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_outcome_store(challenge)
    monkeypatch.setattr("openrepro.board.lists.PAGE_SIZE", 2)
    board = TestClient(create_app(challenge, cache_seconds=0.05))
    path: str | None = "/leaderboard"
    ranks: list[list[str]] = []
    handles: list[str] = []
    while path:
        html = board.get(path).text
        ranks.append(re.findall(r'<tr><td class="num">(\d+)</td>', html))
        handles += re.findall(r'href="/participants/([^"]+)"', html)
        found = NEXT.search(html)
        path = found[1].replace("&amp;", "&") if found else None
    assert ranks == [["1", "2"], ["3", "4"], ["5"]]
    assert len(handles) == len(set(handles)) == 5


def test_cursor_helpers() -> None:
    keys = [(f"p{i:02d}",) for i in range(10)]
    page = keyset_page("papers", keys, None, 4)
    assert (page.start, page.end, page.prev) == (0, 4, None)
    after = keyset_page("papers", keys, page.next, 4)
    assert (after.start, after.end) == (4, 8)
    before = keyset_page("papers", keys, after.prev, 4)
    assert (before.start, before.end) == (0, 4)
    last = keyset_page("papers", keys, after.next, 4)
    assert (last.start, last.end, last.next) == (8, 10, None)
    assert decode_cursor("papers", page.next or "") == (("p03",), "after")
    with pytest.raises(ConfigError, match="bad cursor"):
        keyset_page("papers", keys, encode_cursor("papers", [3]), 4)  # a key of another type
    with pytest.raises(ConfigError, match="bad cursor"):
        decode_cursor("papers", encode_cursor("papers", [True]))
    ranked = [("c",), ("a",), ("b",)]
    index = {k: i for i, k in enumerate(ranked)}
    assert anchored_page("lb", ranked, index, encode_cursor("lb", ["a"]), 5).start == 2


def _verdict_walk(board: TestClient, url: str) -> list[list[tuple[str, int, str]]]:
    """Follow the verdict list's ``Link: <...>; rel="next"`` headers to the end."""
    pages = []
    while url:
        reply = board.get(url)
        assert reply.status_code == 200, reply.text
        pages.append([(c["paper"], c["claim_id"], c["participant"]) for c in reply.json()])
        link = re.fullmatch(r'<([^>]+)>; rel="next"', reply.headers.get("link", ""))
        url = link[1] if link else ""
    return pages


def test_verdict_list_pages_follow_its_link_header(
    board: TestClient, challenge: ChallengeContext
) -> None:
    whole = _verdict_walk(board, "/api/v1/verdicts")
    assert len(whole) == 1 and len(whole[0]) == 16  # fewer than a page: no Link header
    pages = _verdict_walk(board, "/api/v1/verdicts?limit=5")
    assert [len(p) for p in pages] == [5, 5, 5, 1]
    assert [v for p in pages for v in p] == whole[0] == sorted(whole[0])
    alice = _verdict_walk(board, "/api/v1/verdicts?participant=alice&limit=2")
    assert len(alice) > 1  # the filter is kept in the next page's URL
    assert [v for p in alice for v in p] == [v for v in whole[0] if v[2] == "alice"]
    bad = board.get("/api/v1/verdicts", params={"cursor": "bm90LWEtY3Vyc29y"})
    assert bad.status_code == 400 and "bad cursor" in bad.json()["error"]["message"]


def test_verdict_cursor_survives_new_verdicts_before_it(
    board: TestClient, challenge: ChallengeContext
) -> None:
    """A page's cursor names its last verdict: a verdict added on a paper listed earlier
    shows on no later page, and no verdict is listed twice."""
    first = board.get("/api/v1/verdicts?limit=3&participant=alice")
    listed = [(c["paper"], c["claim_id"]) for c in first.json()]
    following = re.fullmatch(r'<([^>]+)>; rel="next"', first.headers["link"])
    assert following is not None and "participant=alice" in following[1]
    with challenge.store.session() as session:  # alice's first paper gets a new claim judged
        from sqlalchemy import select

        from openrepro.store import Claim, Logbook, Paper, Participant, Verdict

        paper = session.scalar(select(Paper).where(Paper.venue_id == listed[0][0]))
        assert paper is not None
        claim = Claim(paper_id=paper.id, key="Z1", text="A new claim.", kind="result",
                      status="active", origin="organizer")  # fmt: skip
        session.add(claim)
        session.flush()
        book = session.scalar(
            select(Logbook)
            .join(Participant)
            .where(Logbook.paper_id == paper.id, Participant.handle == "alice")
            .order_by(Logbook.id.desc())
        )
        assert book is not None
        session.add(Verdict(logbook_id=book.id, claim_id=claim.id, verdict="verified",
                            judge_config="cfg-new", provenance="self-recorded"))  # fmt: skip
        session.commit()
    rest = [(c["paper"], c["claim_id"]) for c in board.get(following[1]).json()]
    assert rest and not set(rest) & set(listed)
    everything = [(c["paper"], c["claim_id"]) for c in
                  board.get("/api/v1/verdicts?participant=alice").json()]  # fmt: skip
    new = (listed[0][0], claim.id)
    assert new in everything and new not in listed + rest  # it sorts before the cursor
    assert sorted(everything) == sorted([*listed, *rest, new])


def test_crafted_cursors_and_page_sizes_do_not_fill_the_cache(challenge: ChallengeContext) -> None:
    """Before: every crafted cursor and limit/offset pair was a new cache entry (4,000
    anonymous requests: +574 MiB); an offset past the end was a 500."""
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id=f"P{i:03d}", title=f"Paper {i}") for i in range(30)],
                  source="test")  # fmt: skip
    app = create_app(challenge, cache_seconds=1.0, warm=False)
    client = TestClient(app)
    assert client.get("/api/v1/papers?limit=10").status_code == 200
    cache = app.state.cache
    before = len(cache)
    for i in range(40):
        crafted = encode_cursor("papers", (f"P{i % 29:03d}x",))  # between two rows
        reply = client.get(f"/api/v1/papers?cursor={crafted}")
        assert reply.status_code == 200 and reply.json()["papers"]
        assert client.get(f"/api/v1/papers?limit={i + 1}&offset={i % 29}").status_code == 200
    assert len(cache) == before
    # the canonical pages are still cached: the default page and a cursor the board handed out
    first = client.get("/api/v1/papers").json()
    assert len(cache) == before + 1
    assert first["next"] is None or client.get(f"/api/v1/papers?cursor={first['next']}")
    for offset in (30, 10**6, 2**70):
        reply = client.get(f"/api/v1/papers?offset={offset}")
        assert reply.status_code == 400, offset
        assert "past the end" in reply.json()["error"]["message"]


def test_crafted_cursors_on_the_paper_page_are_not_kept(challenge: ChallengeContext) -> None:
    """The HTML paper list, like the API's: a cursor naming no row is answered, not cached."""
    import_papers(challenge.store, challenge.challenge_id,
                  [PaperRecord(venue_id=f"P{i:03d}", title=f"Paper {i}") for i in range(30)],
                  source="test")  # fmt: skip
    app = create_app(challenge, cache_seconds=1.0, warm=False)
    client = TestClient(app)
    assert client.get("/papers").status_code == 200
    before = len(app.state.cache)
    for i in range(20):
        crafted = encode_cursor("papers", (f"P{i:03d}x",))
        reply = client.get(f"/papers?cursor={crafted}")
        assert reply.status_code == 200 and f"Paper {i + 1}" in reply.text
    assert len(app.state.cache) == before
    real = encode_cursor("papers", ("P004",))  # a row's own key: a page worth keeping
    assert client.get(f"/papers?cursor={real}").status_code == 200
    assert len(app.state.cache) == before + 1
