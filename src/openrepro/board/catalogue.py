"""The board's one page catalogue: every kind of page, its live route and static file (the link
makers of :mod:`openrepro.board.pages` spell both), its template and what it depends on.

The live board (:mod:`openrepro.board.web`) caches a page under :func:`cache_key` with the tags
:func:`record_tags` gives (see :mod:`openrepro.board.cache`); the static site
(:mod:`openrepro.board.site`) writes it at :func:`static_file`; both list the record pages with
:func:`record_pages` and build them with :class:`openrepro.board.assemble.Assembler`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from openrepro.board.cache import AGGREGATE, paper_tag, participant_tag
from openrepro.board.pages import StaticUrls, WebUrls

if TYPE_CHECKING:
    from openrepro.board.assemble import Records

__all__ = [
    "PAGES",
    "PageKind",
    "cache_key",
    "live_url",
    "record_pages",
    "record_tags",
    "static_file",
    "static_urls",
]


@dataclass(frozen=True)
class PageKind:
    """One kind of page. ``link`` is its name for the link makers, ``param`` the record key
    it takes (None for a page of the whole challenge), ``depth`` its static file's folder depth
    (relative links), ``depends`` what it shows: ``aggregate`` (the whole challenge, rebuilt
    with a debounce), ``paper`` / ``participant`` (dropped when that record changes), or
    nothing (a logbook revision never changes)."""

    name: str
    link: str
    template: str | None
    param: str | None
    depth: int
    depends: tuple[str, ...]


PAGES: dict[str, PageKind] = {
    k.name: k
    for k in (
        PageKind("home", "home", "home.html", None, 0, (AGGREGATE,)),
        PageKind("papers", "papers", "papers.html", None, 1, (AGGREGATE,)),
        PageKind("leaderboard", "leaderboard", "leaderboard.html", None, 0, (AGGREGATE,)),
        PageKind("recheck", "recheck", "recheck.html", None, 0, (AGGREGATE,)),
        PageKind("stats", "stats", "stats.html", None, 0, (AGGREGATE,)),
        PageKind("paper", "paper", "paper.html", "venue_id", 2, ("paper",)),
        PageKind("logbook", "logbook", "logbook.html", "logbook_id", 1, ("paper", "participant")),
        PageKind("content", "logbook_content", None, "logbook_id", 2, ()),
        PageKind("participant", "participant", "participant.html", "handle", 1, ("participant",)),
    )
}
#: The pages of one record each, in the order they are built ahead.
RECORD_KINDS = ("paper", "logbook", "content", "participant")


def _params(kind: PageKind, key: str | int | None) -> dict[str, str | int]:
    return {} if kind.param is None or key is None else {kind.param: key}


def cache_key(kind: str, key: str | int | None = None) -> str:
    """The live board's cache key of a page (the record's key after the kind)."""
    return kind if key is None else f"{kind}:{key}"


def live_url(kind: str, key: str | int | None = None) -> str:
    """The page's path on the live board."""
    page = PAGES[kind]
    return WebUrls()(page.link, **_params(page, key))


def static_file(kind: str, key: str | int | None = None) -> str:
    """The page's file in the static site, relative to its root."""
    page = PAGES[kind]
    return StaticUrls(0)(page.link, **_params(page, key))


def static_urls(kind: str) -> StaticUrls:
    """The links of a static page of ``kind`` (relative to its folder)."""
    return StaticUrls(PAGES[kind].depth)


def record_pages(records: Records) -> Iterator[tuple[str, str | int]]:
    """Every record page of the board (kind, key), as ``records`` read them."""
    for venue_id in records.venue_ids():
        yield "paper", venue_id
    for book in records.books:
        yield "logbook", book.id
        yield "content", book.id
    for handle in records.handles():
        yield "participant", handle


def record_tags(records: Records, kind: str, key: str | int) -> set[str]:
    """The cache tags of a record page: the paper and participant it depends on."""
    tags: set[str] = set()
    depends = PAGES[kind].depends
    if kind == "paper":
        tags.add(paper_tag(records.paper_id(str(key))))
    elif kind == "participant":
        tags.add(participant_tag(records.participant_id(str(key))))
    elif "paper" in depends:  # a logbook's page: its paper and its participant
        book = records.logbook(int(key)).summary
        tags.add(paper_tag(records.paper_id(book.paper_id)))
        tags.add(participant_tag(records.participant_id(book.participant)))
    return tags
