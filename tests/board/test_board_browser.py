"""The board in a real browser (Debian's Chromium driven by Playwright): pages render, filters
and search work, and hostile participant content runs no script and loads nothing foreign."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from board_fixtures import HOSTILE, hostile_bundle, live_board
from outcome_store import build_outcome_store
from test_board_checks import judged_check

from openrepro.board import build_board_site
from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import import_papers


@pytest.fixture
def hostile_challenge(tmp_path: Path) -> Iterator[tuple[ChallengeContext, int]]:
    ctx = init_challenge(tmp_path / "ch", "browser-test", title="Browser test")
    build_outcome_store(ctx)
    records = [PaperRecord(venue_id="p1", title=f"Hostile {HOSTILE}", abstract=HOSTILE)]
    import_papers(ctx.store, ctx.challenge_id, records, source="test")
    report = submit_logbook(ctx, hostile_bundle(tmp_path / "bundle"), handle="mallory")
    yield ctx, report.logbook_id
    ctx.close()


class Watch:
    """Dialogs, foreign requests and page errors seen by a page."""

    def __init__(self, page: Any, origin: str) -> None:
        self.dialogs: list[str] = []
        self.foreign: list[str] = []
        self.errors: list[str] = []
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

        def request(r: Any) -> None:
            parsed = urlparse(r.url)
            if (
                parsed.scheme in {"http", "https"}
                and f"{parsed.scheme}://{parsed.netloc}" != origin
            ):
                self.foreign.append(r.url)

        page.on("request", request)


def _pwned(page: Any) -> list[Any]:
    return [frame.evaluate("() => window.__pwned ?? null") for frame in page.frames]


def test_pages_filters_and_search(browser: Any, hostile_challenge: Any) -> None:
    ctx, _ = hostile_challenge
    with live_board(ctx) as base:
        page = browser.new_page()
        page.goto(base + "/")
        assert page.locator("#outcomes tr").count() == 11  # header + 10 rows
        page.click("text=Papers")
        assert page.locator("#papers tr").count() == 12  # header + 11 papers
        page.click("a[data-filter=contested]")
        assert page.locator("#papers tr[data-status]").count() == 1
        assert "P5-contested" in page.inner_text("#papers")
        page.fill("input[name=q]", "allfalse")
        page.press("input[name=q]", "Enter")
        page.wait_for_url("**q=allfalse**")
        page.click("a[data-filter=all]")
        page.fill("input[name=q]", "allfalse")
        page.press("input[name=q]", "Enter")
        page.wait_for_url("**q=allfalse**")
        assert page.locator("#papers tr[data-status]").count() == 1
        page.click("#papers a")
        assert page.inner_text("#outcome") == "all falsified"
        page.click("#matrix th a")
        assert page.locator("#verdicts tr").count() >= 2
        page.close()


def test_hostile_logbook_runs_nothing_on_the_board(browser: Any, hostile_challenge: Any) -> None:
    ctx, logbook_id = hostile_challenge
    with live_board(ctx) as base:
        page = browser.new_page()
        watch = Watch(page, base)
        for path in (f"/logbooks/{logbook_id}", "/papers/p1", "/papers", "/participants/mallory"):
            page.goto(base + path)
            page.wait_for_load_state("load")
            assert _pwned(page) == [None] * len(page.frames)
        frame = page.frame_locator("iframe.logbook")
        page.goto(base + f"/logbooks/{logbook_id}")
        assert "window.__pwned" in frame.locator("body").inner_text()  # shown as text
        assert watch.dialogs == [] and watch.foreign == [], (watch.dialogs, watch.foreign)
        page.close()


def test_static_site_is_inert_too(browser: Any, hostile_challenge: Any, tmp_path: Path) -> None:
    ctx, logbook_id = hostile_challenge
    out = tmp_path / "site"
    build_board_site(ctx, out)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        page = browser.new_page()
        watch = Watch(page, base)
        page.goto(base + "/index.html")
        page.click("text=Papers")
        page.click("a[data-filter=contested]")
        assert page.locator("#papers tr[data-status]").count() == 1
        page.goto(base + f"/logbooks/{logbook_id}.html")
        assert "window.__pwned" in page.frame_locator("iframe.logbook").locator("body").inner_text()
        assert _pwned(page) == [None] * len(page.frames)
        assert watch.dialogs == [] and watch.foreign == []
        page.close()
    finally:
        server.shutdown()


def test_the_logbook_page_shows_the_check_chart_and_links_into_the_frame(
    browser: Any, tmp_path: Path
) -> None:
    """A verdict the real judge decided by its check, on a real Trackio logbook: Chromium draws
    the chart (a dot per seed, the paper's bound) and a value's link opens its metric row in
    the logbook frame. Optional screenshot: OPENREPRO_TEST_SCREENSHOTS=<folder>."""
    ctx = init_challenge(tmp_path / "ch", "browser-checks", title="Checks")
    try:
        book = judged_check(ctx, tmp_path)
        with live_board(ctx) as base:
            page = browser.new_page()
            watch = Watch(page, base)
            page.goto(base + f"/logbooks/{book}")
            chart = page.locator(f"#check-C1-{book} svg.check-chart")
            assert chart.is_visible()
            box = chart.bounding_box()
            assert box is not None and box["width"] > 200 and box["height"] > 40
            assert chart.locator("circle.seed").count() == 3
            assert chart.locator("line.reference").get_attribute("data-value") == "90"
            assert "paper: 90" in (chart.locator("desc").text_content() or "")
            link = page.locator(f"#check-C1-{book} a.pointer-metric").first
            anchor = link.get_attribute("href").split("#")[1]  # type: ignore[union-attr]
            link.click()
            frame = page.frame("logbook-frame")
            assert frame is not None
            frame.wait_for_url(f"**#{anchor}")
            row = frame.locator(f"[id='{anchor}']")
            assert row.count() == 1 and "95.1" in row.inner_text()
            shots = os.environ.get("OPENREPRO_TEST_SCREENSHOTS")
            if shots:
                page.locator(f"#check-C1-{book}").screenshot(path=f"{shots}/logbook-check.png")
                page.screenshot(path=f"{shots}/logbook-page.png", full_page=True)
            assert watch.dialogs == [] and watch.foreign == [] and watch.errors == []
            page.close()
    finally:
        ctx.close()


def test_api_docs_render_offline(browser: Any, tmp_path: Path) -> None:
    """Swagger UI comes from the board itself: it renders with no other host reachable."""
    ctx = init_challenge(tmp_path / "ch", "docs-test", title="Docs test")
    try:
        with live_board(ctx) as base:
            page = browser.new_page()
            watch = Watch(page, base)
            page.goto(base + "/api/docs")
            page.wait_for_selector(".swagger-ui .info .title", timeout=20_000)
            assert "Docs test" in page.inner_text(".swagger-ui .info .title")
            assert page.locator(".opblock").count() > 10  # the API's operations
            assert watch.foreign == [] and watch.errors == []
            page.close()
    finally:
        ctx.close()
