"""The live board in the event's own order: served before any data, then papers imported, a
claim extracted, logbooks submitted and judged by the real judge, a team changed and a re-check
decided. At every step every page answers 200 and shows what ``outcomes`` says."""

from __future__ import annotations

import logging
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from board_fixtures import live_board
from fastapi.testclient import TestClient
from sqlalchemy import text
from test_judge_checks import ABSTRACT, _attempt  # a real Trackio logbook, three seeds

from openrepro.board import create_app
from openrepro.board.web import INTERNAL_ERROR
from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.claims import add_claim
from openrepro.identity import set_team
from openrepro.judge.service import judge_logbooks
from openrepro.outcomes import claim_consensus, paper_outcomes
from openrepro.papers import PaperRecord, import_papers
from openrepro.recheck import decide, recheck_queue
from pgdb import postgres_database

CHECK_S = 0.05
LISTS = ("/", "/papers", "/papers?status=attempted", "/leaderboard", "/recheck", "/stats")


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=20) as answer:
            return int(answer.status), answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return int(error.code), error.read().decode("utf-8")


def _pages(ctx: ChallengeContext) -> list[str]:
    """Every page of the board as the store has it now."""
    paths = list(LISTS)
    outcomes = paper_outcomes(ctx, public=True)
    paths += [f"/papers/{o.paper}" for o in outcomes]
    from openrepro.logbooks.service import list_logbooks

    with ctx.store.session() as session:
        books = list_logbooks(session, ctx.challenge_id)
    paths += [f"/logbooks/{b.id}" for b in books]
    paths += sorted({f"/participants/{b.participant}" for b in books})
    return paths


Fetch = Callable[[str], tuple[int, str]]


def _expect_outcomes(base: str, ctx: ChallengeContext, step: str, browse: Fetch | None) -> None:
    """Every page answers 200; each paper page shows its outcome and each claim's consensus as
    ``outcomes`` computes them (the cache may take a check interval to see a write). With
    ``browse``, the home page and the paper pages are also read in a browser."""
    deadline = time.monotonic() + 10
    while True:
        wrong: list[str] = []
        for path in _pages(ctx):
            status, body = _get(base + path)
            if status != 200:
                wrong.append(f"{path}: {status} {body[:300]}")
        shown_in = [_get] if browse is None else [_get, browse]
        queued = [e for e in recheck_queue(ctx, public=True) if e.logbooks]
        for get in shown_in:
            if get is not _get:
                status, _ = get(base + "/")
                if status != 200:
                    wrong.append(f"/ in the browser: {status}")
            for o in paper_outcomes(ctx, public=True):
                status, body = get(f"{base}/papers/{o.paper}")
                shown = re.search(r'<span id="outcome">([^<]*)</span>', body)
                if status != 200 or shown is None or shown.group(1) != o.status:
                    found = shown and shown.group(1)
                    wrong.append(f"{o.paper}: {status}, page says {found}, not {o.status}")
                for c in claim_consensus(ctx, paper_ids=[o.paper_id], public=True):
                    if f'class="v-{c.consensus}"' not in body:
                        wrong.append(f"{o.paper}/{c.key}: consensus {c.consensus} not shown")
                for e in queued:  # the re-check state beside the claim's verdicts
                    if e.paper == o.paper and f'data-recheck="{e.status}"' not in body:
                        wrong.append(f"{e.claim}: re-check state {e.status} not shown")
        if not wrong:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"after {step}: " + "; ".join(wrong))
        time.sleep(CHECK_S)


def _the_event(ctx: ChallengeContext, tmp_path: Path, get: Fetch | None) -> None:
    """Serve first, then the event's steps, checking every page after each."""
    with live_board(ctx, cache_seconds=CHECK_S) as base:
        _expect_outcomes(base, ctx, "serve", get)
        paper = PaperRecord(venue_id="p1", title="Bounds", abstract=ABSTRACT, authors=["A. Author"])
        import_papers(ctx.store, ctx.challenge_id, [paper], source="t")
        _expect_outcomes(base, ctx, "import", get)
        with ctx.store.session() as s:
            add_claim(s, ctx.challenge_id, "p1", text="At least 90% accuracy on CIFAR-10.",
                      kind="result", quotes=["reaches at least 90% accuracy"],
                      editor="org", drafting="rules")  # fmt: skip
        _expect_outcomes(base, ctx, "extract", get)
        _attempt(ctx, tmp_path, "alice", "95.1,95.3,94.9")
        _attempt(ctx, tmp_path, "bob", "85.2,85.0,84.9")
        _expect_outcomes(base, ctx, "submit", get)
        judge_logbooks(ctx, None)
        assert paper_outcomes(ctx, public=True)[0].contested_any
        _expect_outcomes(base, ctx, "judge", get)
        set_team(ctx, "alice", "t1")
        set_team(ctx, "bob", "t1")  # one team: no longer independent, so not contested
        assert not paper_outcomes(ctx, public=True)[0].contested_any
        _expect_outcomes(base, ctx, "team change", get)
        set_team(ctx, "bob", None)  # dropped from the team: contested again
        assert paper_outcomes(ctx, public=True)[0].contested_any
        _expect_outcomes(base, ctx, "team dropped", get)
        assert [e.status for e in recheck_queue(ctx, public=True)] == ["open"]
        decide(ctx, "p1/C1", "needs-more-evidence", "one seed per setting is not enough")
        _expect_outcomes(base, ctx, "re-check asks for more evidence", get)
        decide(ctx, "p1/C1", "rejected", "the falsifying run used the wrong split")
        _expect_outcomes(base, ctx, "re-check decided", get)


def test_serve_first_then_the_whole_event_on_postgresql(tmp_path: Path) -> None:
    """Over HTTP on PostgreSQL (its change journal is PL/pgSQL triggers); the Chromium test
    below runs the same steps on SQLite."""
    for url in postgres_database():
        ctx = init_challenge(tmp_path / "ch", "pg-event", title="PG event", database_url=url)
        try:
            _the_event(ctx, tmp_path, None)
        finally:
            ctx.close()


def test_serve_first_then_the_whole_event_in_chromium(browser: Any, tmp_path: Path) -> None:
    ctx = init_challenge(tmp_path / "ch", "browser-event", title="Browser event")
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def get(url: str) -> tuple[int, str]:
        answer = page.goto(url)
        assert answer is not None
        return answer.status, page.content()

    try:
        _the_event(ctx, tmp_path, get)
    finally:
        page.close()
        ctx.close()
    assert not errors


def test_a_failing_page_logs_its_traceback_and_shows_no_internals(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ctx = init_challenge(tmp_path / "ch", "broken", title="Broken")
    try:
        import_papers(ctx.store, ctx.challenge_id, [PaperRecord(venue_id="p1", title="T")],
                      source="t")  # fmt: skip
        board = TestClient(create_app(ctx, cache_seconds=0), raise_server_exceptions=False)
        with ctx.store.session() as session:  # a store broken under the board
            session.execute(text("DROP TABLE claims"))
        with caplog.at_level(logging.ERROR, logger="openrepro.board.web"):
            page = board.get("/papers/p1")
            answer = board.get("/api/v1/papers/p1")
        assert page.status_code == 500 and answer.status_code == 500
        for body in (page.text, answer.text):
            assert INTERNAL_ERROR in body
            assert "claims" not in body.lower().replace(INTERNAL_ERROR.lower(), "")
            assert "select" not in body.lower() and "sqlite" not in body.lower()
        logged = "\n".join(r.getMessage() + str(r.exc_info) for r in caplog.records)
        assert "GET /papers/p1 failed" in logged and "no such table" in logged
        assert any(r.exc_info for r in caplog.records)  # the traceback
    finally:
        ctx.close()
