"""The paginated paper list in a real browser (Debian's Chromium driven by Playwright): next
and previous follow cursors, a filter starts from its own first page, nothing runs script."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from board_fixtures import live_board

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import import_papers


@pytest.fixture
def many_papers(tmp_path: Path) -> Iterator[ChallengeContext]:
    ctx = init_challenge(tmp_path / "ch", "pages-test", title="Pagination test")
    records = [PaperRecord(venue_id=f"p{i:04d}", title=f"Paper {i}") for i in range(450)]
    import_papers(ctx.store, ctx.challenge_id, records, source="test")
    yield ctx
    ctx.close()


def test_paper_list_next_and_previous(browser: Any, many_papers: ChallengeContext) -> None:
    with live_board(many_papers) as base:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "/papers")
        assert page.inner_text("#count") == "450"
        assert page.inner_text("#range") == "1–200"
        rows = page.locator("#papers tr[data-status]")
        assert rows.count() == 200
        first_page = rows.first.inner_text()
        assert "p0000" in first_page
        page.click("a[rel=next]")
        page.wait_for_url("**cursor=**")
        assert page.inner_text("#range") == "201–400"
        assert "p0200" in rows.first.inner_text() and "p0399" in rows.last.inner_text()
        page.click("a[rel=next]")
        assert page.inner_text("#range") == "401–450"
        assert rows.count() == 50 and page.locator("a[rel=next]").count() == 0
        page.click("a[rel=prev]")
        assert page.inner_text("#range") == "201–400"
        page.click("a[rel=prev]")
        assert page.inner_text("#range") == "1–200" and rows.first.inner_text() == first_page
        assert page.locator("a[rel=prev]").count() == 0
        page.click("a[data-filter=unattempted]")
        assert page.inner_text("#range") == "1–200" and "cursor" not in page.url
        assert errors == []
        page.close()
