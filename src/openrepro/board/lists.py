"""The board's five list pages (home, stats, leaderboard, paper lists, re-check queue), for the
live board and the static site alike: the same data (the challenge-wide figures of
:class:`~openrepro.board.cache.Aggregates`), the same templates, links from
:class:`~openrepro.board.catalogue.Links`. They differ only where a static host cannot answer a
query: the live board pages its lists with keyset cursors and filters the re-check queue by
reason; the static site writes numbered paper-list files and one leaderboard (the files are
listed by :func:`openrepro.board.catalogue.list_pages`).
"""

from __future__ import annotations

from typing import Any

from openrepro.board import data as board_data
from openrepro.board.cache import Aggregates
from openrepro.board.catalogue import Links
from openrepro.board.cursor import anchored_page, keyset_page
from openrepro.board.pages import PAGE_SIZE, Renderer, home_charts, page_slice
from openrepro.recheck import REASONS, STATUSES

__all__ = ["ListPages", "papers_kind"]


def papers_kind(sort: str) -> str:
    """The cursor kind of the paper list in order ``sort``."""
    return "papers" if sort == "id" else f"papers-{sort}"


class ListPages:
    """Renders the list pages from ``data`` with ``renderer``."""

    def __init__(self, renderer: Renderer, data: Aggregates) -> None:
        self.renderer, self.data, self.ctx = renderer, data, data.ctx

    def render(self, kind: str, url: Links, *, static: bool, **params: Any) -> str:
        """The list page of ``kind`` (one of :data:`~openrepro.board.catalogue.LIST_KINDS`)."""
        page: str = getattr(self, kind)(url, static=static, **params)
        return page

    def home(self, url: Links, *, static: bool) -> str:
        home = board_data.home_data(self.ctx, self.data.outcomes(), self.data.stats())
        return self.renderer.render("home.html", url, static=static, data=home,
                                    charts=home_charts(home))  # fmt: skip

    def stats(self, url: Links, *, static: bool) -> str:
        home = board_data.home_data(self.ctx, self.data.outcomes(), self.data.stats())
        queue = None if static else board_data.judge_queue(self.ctx)  # the live board's only
        return self.renderer.render("stats.html", url, static=static, stats=home.stats,
                                    charts=home_charts(home), queue=queue)  # fmt: skip

    def leaderboard(self, url: Links, *, static: bool, cursor: str = "") -> str:
        credit = self.data.stats().credit
        if static:  # one file: the whole ranking
            return self.renderer.render("leaderboard.html", url, static=True, credit=credit)
        index = self.data.credit_index()
        shown = anchored_page("leaderboard", list(index), index, cursor or None, PAGE_SIZE)
        return self.renderer.render(
            "leaderboard.html", url, static=False, credit=credit[shown.start : shown.end],
            rank=shown.start, next_url=shown.next and url("leaderboard", cursor=shown.next),
            prev_url=shown.prev and url("leaderboard", cursor=shown.prev),
        )  # fmt: skip

    def papers(
        self, url: Links, *, static: bool, status: str = "all", sort: str = "id",
        cursor: str = "", page: int = 1,
    ) -> str:  # fmt: skip
        rows = self.data.paper_rows(status, sort)
        values: dict[str, Any] = {"total": len(rows), "status": status, "query": "",
                                  "author": "", "sort": sort}  # fmt: skip
        if static:  # numbered files
            shown_rows, pages = page_slice(rows, page)
            return self.renderer.render("papers.html", url, static=True, rows=shown_rows,
                                        page=page, pages=pages, **values)  # fmt: skip
        kind = papers_kind(sort)
        shown = keyset_page(kind, self.data.paper_keys(status, sort), cursor or None, PAGE_SIZE)
        return self.renderer.render(
            "papers.html", url, static=False, rows=rows[shown.start : shown.end],
            sorts=board_data.PAPER_SORTS, first=shown.start + 1,
            next_url=shown.next and url("papers", status=status, sort=sort, cursor=shown.next),
            prev_url=shown.prev and url("papers", status=status, sort=sort, cursor=shown.prev),
            **values,
        )  # fmt: skip

    def recheck(self, url: Links, *, static: bool, status: str = "", reason: str = "") -> str:
        entries = board_data.recheck_entries(self.ctx, status or None, reason or None)
        return self.renderer.render("recheck.html", url, static=static, entries=entries,
                                    status=status, reason=reason, statuses=STATUSES,
                                    reasons=() if static else REASONS)  # fmt: skip
