"""The board's one page catalogue: every kind of page (the five list pages and the four record
pages), its live route and static file, its template and the records it shows.

- **Links**: :class:`Links` is the one URL builder of every page, live (``Links.live()``: the
  routes of ``openrepro serve``) or static (``Links.static(depth)``: files relative to a page
  ``depth`` folders down), both spelled by :data:`ROUTES`, one entry per kind of link.
- **What a page shows**: its tags (:func:`record_tags`; ``aggregate`` for a list page), in the
  vocabulary of the store's change journal (:mod:`openrepro.store.journal`). The live board
  drops a cached page when the journal marks one of its tags (:mod:`openrepro.board.cache`);
  the static site writes again the pages whose tags the journal marked since its last build
  (:mod:`openrepro.board.site`).
- **Which pages exist**: :func:`record_pages` and :func:`list_pages`; both boards build them
  with :class:`openrepro.board.assemble.Assembler` and :class:`openrepro.board.lists.ListPages`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote, urlencode

from openrepro.board.data import PAPER_FILTERS
from openrepro.board.pages import PAGE_SIZE, slug
from openrepro.recheck import STATUSES
from openrepro.store.journal import AGGREGATE, logbook_tag, name_tag, paper_tag, participant_tag

if TYPE_CHECKING:
    from openrepro.board.assemble import Records
    from openrepro.board.cache import Aggregates

__all__ = [
    "LIST_KINDS",
    "PAGES",
    "RECORD_KINDS",
    "ROUTES",
    "LinkKind",
    "Links",
    "PageKind",
    "Route",
    "cache_key",
    "list_pages",
    "live_url",
    "record_pages",
    "record_tags",
    "static_file",
    "static_urls",
]

LinkKind = Literal[
    "home", "papers", "paper", "logbook", "logbook_content", "participant", "leaderboard",
    "recheck", "stats", "api_docs", "accept_proposal", "check_queue", "accept_draft", "mark_human",
]  # fmt: skip
Params = dict[str, Any]


def _query(path: str, params: Params) -> str:
    return path + (f"?{urlencode(params)}" if params else "")


def _papers_live(kw: Params) -> str:
    params = {
        k: v
        for k, v in kw.items()
        if v not in (None, "", 1) and k != "status" and not (k == "sort" and v == "id")
    }
    if kw.get("status") not in (None, "all"):
        params = {"status": kw["status"], **params}
    return _query("/papers", params)


def _papers_static(kw: Params) -> str:
    page = int(kw.get("page") or 1)
    return f"papers/{kw.get('status') or 'all'}{'' if page == 1 else f'-{page}'}.html"


def _recheck_static(kw: Params) -> str:
    status = kw.get("status")
    return f"recheck{f'-{status}' if status else ''}.html"


@dataclass(frozen=True)
class Route:
    """Where a kind of link points: ``live`` gives the live board's path (with its query),
    ``static`` the static site's file relative to its root (None: the live board only)."""

    live: Callable[[Params], str]
    static: Callable[[Params], str] | None


ROUTES: dict[str, Route] = {
    "home": Route(lambda kw: "/", lambda kw: "index.html"),
    "papers": Route(_papers_live, _papers_static),
    "paper": Route(lambda kw: f"/papers/{quote(kw['venue_id'], safe='')}",
                   lambda kw: f"papers/p/{slug(kw['venue_id'])}.html"),
    "logbook": Route(lambda kw: f"/logbooks/{int(kw['logbook_id'])}",
                     lambda kw: f"logbooks/{int(kw['logbook_id'])}.html"),
    "logbook_content": Route(lambda kw: f"/logbooks/{int(kw['logbook_id'])}/content",
                             lambda kw: f"logbooks/{int(kw['logbook_id'])}/index.html"),
    "participant": Route(lambda kw: f"/participants/{quote(kw['handle'], safe='')}",
                         lambda kw: f"participants/{slug(kw['handle'])}.html"),
    "leaderboard": Route(lambda kw: _query("/leaderboard", {k: kw[k] for k in ("cursor",)
                                                           if kw.get(k)}),
                         lambda kw: "leaderboard.html"),
    "recheck": Route(lambda kw: _query("/recheck", {k: kw[k] for k in ("status", "reason")
                                                   if kw.get(k)}), _recheck_static),
    "stats": Route(lambda kw: "/stats", lambda kw: "stats.html"),
    "api_docs": Route(lambda kw: "/api/docs", lambda kw: "index.html"),
    "accept_proposal": Route(lambda kw: f"/proposals/{int(kw['proposal_id'])}/accept", None),
    "check_queue": Route(lambda kw: "/checks/queue", None),
    "accept_draft": Route(lambda kw: f"/drafts/{int(kw['draft_id'])}/accept", None),
    "mark_human": Route(lambda kw: "/checks/queue/human", None),
}  # fmt: skip


class Links:
    """The links of a page: the live board's routes (:meth:`live`) or the static site's files
    relative to a page ``depth`` folders below its root (:meth:`static`). Called as templates
    call it: ``url(kind, **params)``; an unknown kind (or one the static site has no file
    for) raises KeyError."""

    def __init__(self, root: str | None) -> None:
        self.root = root  # None: the live board; else the static page's way up to the root

    @classmethod
    def live(cls) -> Links:
        return cls(None)

    @classmethod
    def static(cls, depth: int) -> Links:
        return cls("../" * depth)

    def __call__(self, kind: LinkKind | str, **kw: Any) -> str:
        route = ROUTES[kind]
        if self.root is None:
            return route.live(kw)
        if route.static is None:
            raise KeyError(kind)
        return self.root + route.static(kw)


@dataclass(frozen=True)
class PageKind:
    """One kind of page. ``link`` is its kind of link (:data:`ROUTES`), ``param`` the record
    key it takes (None for a page of the whole challenge), ``depth`` its static file's folder
    depth (relative links), ``depends`` what it shows: ``aggregate`` (the whole challenge,
    rebuilt with a debounce), or the records :func:`record_tags` names."""

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
        PageKind("paper", "paper", "paper.html", "venue_id", 2, ("paper", "name")),
        PageKind("logbook", "logbook", "logbook.html", "logbook_id", 1,
                 ("paper", "logbook", "participant", "name")),
        PageKind("content", "logbook_content", None, "logbook_id", 2, ("name",)),
        PageKind("participant", "participant", "participant.html", "handle", 1,
                 ("participant", "paper", "name")),
    )
}  # fmt: skip
#: The pages of one record each, in the order they are built ahead.
RECORD_KINDS = ("paper", "logbook", "content", "participant")
#: The pages of the whole challenge (their tag is ``aggregate``).
LIST_KINDS = ("home", "stats", "leaderboard", "papers", "recheck")


def _params(kind: PageKind, key: str | int | None) -> Params:
    return {} if kind.param is None or key is None else {kind.param: key}


def cache_key(kind: str, key: str | int | None = None) -> str:
    """The live board's cache key of a page (the record's key after the kind)."""
    return kind if key is None else f"{kind}:{key}"


def live_url(kind: str, key: str | int | None = None, **params: Any) -> str:
    """The page's path on the live board."""
    page = PAGES[kind]
    return Links.live()(page.link, **_params(page, key), **params)


def static_file(kind: str, key: str | int | None = None, **params: Any) -> str:
    """The page's file in the static site, relative to its root."""
    page = PAGES[kind]
    return Links.static(0)(page.link, **_params(page, key), **params)


def static_urls(kind: str) -> Links:
    """The links of a static page of ``kind`` (relative to its folder)."""
    return Links.static(PAGES[kind].depth)


def list_pages(data: Aggregates) -> Iterator[tuple[str, Params]]:
    """Every list page of the static site (kind, its parameters): one paper list per filter
    and page of :data:`~openrepro.board.pages.PAGE_SIZE` papers, one re-check page per
    status (the live board answers any filter, order and cursor on demand)."""
    yield "home", {}
    yield "stats", {}
    yield "leaderboard", {}
    for status in PAPER_FILTERS:
        pages = max(1, -(-len(data.paper_rows(status)) // PAGE_SIZE))
        for page in range(1, pages + 1):
            yield "papers", {"status": status, "page": page}
    for wanted in ("", *STATUSES):
        yield "recheck", {"status": wanted}


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
    """The records a record page shows, as the change journal names them:

    - a paper's page: the paper (its claims, checks, proposals, verdicts, re-checks, author
      responses) and the names of the participants it lists (logbooks' authors, proposers);
    - a logbook's page: its paper (verdicts), the logbook (its review panels), its participant
      (its other revisions, cited jobs) and that participant's name;
    - a logbook's content: the name it is shown under (the document itself never changes);
    - a participant's page: the participant, and each paper it has logbooks on (its verdicts
      and its credit, which counts the consensus of those papers' claims)."""
    if kind == "paper":
        venue_id = str(key)
        handles = {b.participant for b in records.paper(venue_id).logbooks}
        handles |= records.proposers(venue_id)
        return {paper_tag(records.paper_id(venue_id))} | {name_tag(h) for h in handles}
    if kind == "participant":
        handle = str(key)
        books = records.participant(handle).logbooks
        return {participant_tag(records.participant_id(handle)), name_tag(handle)} | {
            paper_tag(records.paper_id(b.paper_id)) for b in books
        }
    book = records.logbook(int(key)).summary
    if kind == "content":
        return {name_tag(book.participant)}
    return {
        paper_tag(records.paper_id(book.paper_id)),
        participant_tag(records.participant_id(book.participant)),
        name_tag(book.participant),
        logbook_tag(book.id),
    }
