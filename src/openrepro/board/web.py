"""The live board: FastAPI serving the HTML pages, the logbooks' files and the JSON API.

Security: every response carries ``X-Content-Type-Options: nosniff`` and a Content-Security-
Policy; board pages allow no script at all, a participant's logbook is served as its own
document (rendered by :mod:`openrepro.logbooks.render`) with an even stricter policy and shown in a
sandboxed frame, and only raster images of logbooks are served, by content hash.

Speed: rendered pages are cached per URL until what they show changes (see
:mod:`openrepro.board.cache`: a page is tagged with its paper and participant; a new verdict
drops only the pages of its paper and participant and marks the challenge-wide pages stale, to
be rebuilt in the background); whether the store changed is checked at most once per
``cache_seconds`` with one cheap query. Lists are paginated with keyset cursors
(:mod:`openrepro.board.cursor`).
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, TypeVar

from fastapi import FastAPI, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from sqlalchemy import func, select
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from openrepro import __version__
from openrepro.board import data as board_data
from openrepro.board.api import accept_with_token, api_router
from openrepro.board.apidocs import asset as swagger_asset
from openrepro.board.apidocs import swagger_page
from openrepro.board.assemble import Assembler, Records
from openrepro.board.auth import auth_router
from openrepro.board.cache import AGGREGATE, Aggregates, PageCache
from openrepro.board.catalogue import cache_key, record_pages, record_tags
from openrepro.board.cursor import (
    MAX_CURSOR_CHARS,
    anchored_page,
    is_page_boundary,
    keyset_page,
)
from openrepro.board.guard import RequestGuard, RowId
from openrepro.board.pages import BOARD_CSP, PAGE_SIZE, Renderer, WebUrls, home_charts, page_slice
from openrepro.challenge import ChallengeContext
from openrepro.errors import NotFoundError, OpenReproError
from openrepro.logbooks.records import FileRef
from openrepro.logbooks.render import CSP as LOGBOOK_CSP
from openrepro.logbooks.render import IMAGE_EXTENSIONS
from openrepro.logbooks.submit import blob_path
from openrepro.papers import search_terms
from openrepro.recheck import REASONS, STATUSES
from openrepro.store import Logbook, Paper, Participant

T = TypeVar("T")
_log = logging.getLogger(__name__)
Build = Callable[[set[str]], str]

__all__ = ["INTERNAL_ERROR", "SecurityHeaders", "create_app", "image_type"]

#: What a reader sees when the board fails on its side (the traceback goes to the server log).
INTERNAL_ERROR = (
    "The board could not build this page. The error was logged for the organizers; "
    "please try again in a moment."
)

_MEDIA = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
          ".webp": "image/webp"}  # fmt: skip


class SecurityHeaders:
    """Pure ASGI middleware (cheaper than Starlette's BaseHTTPMiddleware on every request):
    ``nosniff``, no referrer, and the board's CSP unless a route set a stricter one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        docs = scope["path"].startswith("/api/docs")  # its own CSP (openrepro.board.apidocs)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "no-referrer"
                if "content-security-policy" not in headers:
                    headers["Content-Security-Policy"] = BOARD_CSP
                if "x-frame-options" not in headers:
                    headers["X-Frame-Options"] = "DENY" if docs else "SAMEORIGIN"
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(
    ctx: ChallengeContext,
    *,
    cache_seconds: float = 1.0,
    aggregate_seconds: float = 5.0,
    cache_pages: int = 50_000,
    warm: bool = False,
    settle_heap: bool = False,
) -> FastAPI:
    """The board of one opened challenge (HTML pages + ``/api/v1``). ``warm`` builds every
    page ahead in the background (``openrepro serve`` does). ``settle_heap`` is for a process
    that only serves this board (``serve``, the ASGI workers): see :class:`_HeapSettler`."""
    app = FastAPI(
        title=f"openrepro board: {ctx.settings.title or ctx.settings.name}",
        version=__version__,
        description="Public board and JSON API of an openrepro reproduction challenge. Reads are "
        "public; writes need `Authorization: Bearer <token>` (see `POST /api/v1/participants`).",
        docs_url=None,  # /api/docs below: pinned assets with Subresource Integrity
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.ctx = ctx
    renderer = Renderer(ctx)
    cache = PageCache(
        ctx, cache_seconds, size=cache_pages, aggregate_seconds=aggregate_seconds,
        on_idle=_HeapSettler() if settle_heap else None,
    )  # fmt: skip
    app.state.cache = cache
    app.router.on_shutdown.append(cache.close)
    if cache_seconds > 0:
        cache.check()  # the first fingerprint, before any page is built against it
    url = WebUrls()

    app.add_middleware(RequestGuard, ctx=ctx)  # body caps and timeouts before any route
    app.add_middleware(SecurityHeaders)

    def error_page(request: Request, status: int, kind: str, message: str) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": {"type": kind, "message": message}}, status_code=status)
        try:
            page = renderer.render("error.html", url, static=False, status=status, message=message)
        except Exception:  # the error page itself failed: plain text, still without internals
            _log.exception("rendering the error page failed")
            return Response(f"{status}: {message}", status_code=status, media_type="text/plain")
        return HTMLResponse(page, status_code=status)

    @app.exception_handler(OpenReproError)
    async def openrepro_error(request: Request, exc: OpenReproError) -> Response:
        if exc.http_status >= 500:  # the board's own failure: its details go to the log only
            return internal_error(request, exc)
        return error_page(request, exc.http_status, type(exc).__name__, str(exc))

    @app.exception_handler(Exception)
    async def unexpected_error(request: Request, exc: Exception) -> Response:
        return internal_error(request, exc)

    def internal_error(request: Request, exc: BaseException) -> Response:
        _log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return error_page(request, 500, "InternalError", INTERNAL_ERROR)

    data = Aggregates(ctx, cache)

    async def html(key: str, build: Build) -> HTMLResponse:
        page = cache.peek(key)  # a fresh cached page is served without a thread or a query
        if page is None:
            page = await run_in_threadpool(cache.get, key, build)
        return HTMLResponse(page)

    def home_page(tags: set[str]) -> str:
        tags.add(AGGREGATE)
        home_data = board_data.home_data(ctx, data.outcomes(), data.stats())
        return renderer.render("home.html", url, static=False, data=home_data,
                               charts=home_charts(home_data))  # fmt: skip

    assembler = Assembler(renderer)

    def record_page(kind: str, key: str | int) -> Build:
        """A record page (see :data:`openrepro.board.catalogue.RECORD_KINDS`), read alone."""

        def build(tags: set[str]) -> str:
            if kind == "paper":
                records = Records(ctx, paper=str(key), recheck=data.recheck())
            elif kind == "participant":
                # not an aggregate: credit counts only the consensus of claims of papers the
                # participant has logbooks on, and a change to such a paper touches them
                records = Records(ctx, participant=str(key), stats=data.stats(),
                                  recheck=data.recheck())  # fmt: skip
            else:
                records = Records(ctx, logbook=int(key), recheck=data.recheck())
            page = render_record(records, kind, key)
            tags.update(record_tags(records, kind, key))
            return page

        return build

    def render_record(records: Records, kind: str, key: str | int) -> str:
        if kind == "paper":
            return assembler.paper(records, str(key), url, static=False)
        if kind == "participant":
            return assembler.participant(records, str(key), url, static=False)
        [(_, record)] = list(records.manifests())
        if kind == "logbook":
            return assembler.logbook(records, int(key), record, url, static=False)
        handle = records.logbook(int(key)).summary.participant
        return assembler.content(record, handle, _web_file_url)

    def built_ahead() -> Iterator[tuple[str, Build, set[str], str]]:
        """Every record page, from one read of the store."""
        records = Records(ctx, stats=data.stats(), outcomes=data.outcomes(),
                          recheck=data.recheck())  # fmt: skip
        manifests = records.manifests()
        for kind, key in record_pages(records):
            if kind == "logbook":
                logbook_id, record = next(manifests)
                assert logbook_id == key
                page = assembler.logbook(records, logbook_id, record, url, static=False)
            elif kind == "content":
                page = assembler.content(record, records.logbook(int(key)).summary.participant,
                                         _web_file_url)  # fmt: skip
            else:
                page = render_record(records, kind, key)
            tags = set() if kind == "content" else record_tags(records, kind, key)
            yield cache_key(kind, key), record_page(kind, key), tags, page

    def stats_page(tags: set[str]) -> str:
        tags.add(AGGREGATE)
        home_data = board_data.home_data(ctx, data.outcomes(), data.stats())
        return renderer.render("stats.html", url, static=False, stats=home_data.stats,
                               charts=home_charts(home_data),
                               queue=board_data.judge_queue(ctx))  # fmt: skip

    def leaderboard_page(after: str) -> Build:
        def build(tags: set[str]) -> str:
            tags.add(AGGREGATE)
            credit, index = data.stats().credit, data.credit_index()
            shown = anchored_page("leaderboard", list(index), index, after or None, PAGE_SIZE)
            return renderer.render(
                "leaderboard.html", url, static=False, credit=credit[shown.start : shown.end],
                rank=shown.start, next_url=shown.next and f"/leaderboard?cursor={shown.next}",
                prev_url=shown.prev and f"/leaderboard?cursor={shown.prev}",
            )  # fmt: skip

        return build

    def papers_kind(sort: str) -> str:
        """The cursor kind of the paper list in order ``sort``."""
        return "papers" if sort == "id" else f"papers-{sort}"

    def papers_page(status: str, sort: str, cursor: str) -> Build:
        def build(tags: set[str]) -> str:
            tags.add(AGGREGATE)
            rows = data.paper_rows(status, sort)
            kind = papers_kind(sort)
            shown = keyset_page(kind, data.paper_keys(status, sort), cursor or None, PAGE_SIZE)
            return renderer.render(
                "papers.html", url, static=False, rows=rows[shown.start : shown.end],
                total=len(rows), status=status, query="", author="", sort=sort,
                sorts=board_data.PAPER_SORTS, first=shown.start + 1,
                next_url=shown.next and url("papers", status=status, sort=sort, cursor=shown.next),
                prev_url=shown.prev and url("papers", status=status, sort=sort, cursor=shown.prev),
            )  # fmt: skip

        return build

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home() -> HTMLResponse:
        return await html("home", home_page)

    @app.get("/stats", response_class=HTMLResponse, include_in_schema=False)
    async def stats() -> HTMLResponse:
        return await html(cache_key("stats"), stats_page)

    @app.get("/papers", response_class=HTMLResponse, include_in_schema=False)
    async def papers(
        status: str = "all",
        q: str = "",
        author: str = "",
        sort: str = "id",
        page: Annotated[int, Query(le=100_000)] = 1,
        cursor: Annotated[str, Query(max_length=MAX_CURSOR_CHARS)] = "",
    ) -> HTMLResponse:
        def search(tags: set[str]) -> str:  # bounded (500 hits), in relevance order: numbered
            rows = board_data.paper_rows(ctx, status=status, query=q, outcomes=data.outcomes(),
                                         pending=data.pending(), author=author,
                                         authors=data.authors())  # fmt: skip
            if not search_terms(q):  # an author alone: in the order asked for
                rows.sort(key=lambda r: board_data.paper_sort_key(r, sort))
            shown, pages = page_slice(rows, page)
            return renderer.render(
                "papers.html", url, static=False, rows=shown, total=len(rows), status=status,
                query=q, author=author, sort=sort, sorts=board_data.PAPER_SORTS,
                page=min(max(page, 1), pages), pages=pages,
            )  # fmt: skip

        if status not in board_data.PAPER_FILTERS:
            raise NotFoundError(f"unknown filter {status!r}; use one of "
                                f"{', '.join(board_data.PAPER_FILTERS)}")  # fmt: skip
        if sort not in board_data.PAPER_SORTS:
            raise NotFoundError(f"unknown order {sort!r}; use one of "
                                f"{', '.join(board_data.PAPER_SORTS)}")  # fmt: skip
        if search_terms(q) or author.strip():  # bounded, not cached: unique queries would fill it
            return HTMLResponse(await run_in_threadpool(search, set()))
        build = papers_page(status, sort, cursor)
        if cursor and not await run_in_threadpool(
            is_page_boundary, papers_kind(sort), data.paper_keys(status, sort), cursor
        ):  # a crafted cursor (a key between rows) is answered, not kept: it never fills the cache
            return HTMLResponse(await run_in_threadpool(build, set()))
        return await html(f"papers?{status}&{sort}&{cursor}", build)

    @app.get("/papers/{venue_id:path}", response_class=HTMLResponse, include_in_schema=False)
    async def paper(venue_id: str) -> HTMLResponse:
        return await html(cache_key("paper", venue_id), record_page("paper", venue_id))

    @app.post("/proposals/{proposal_id}/accept", include_in_schema=False)
    async def accept_proposal_form(proposal_id: RowId, request: Request) -> Response:
        """The board's "accept this check" button: an organizer's API token in the form (the
        board's pages run no script), then back to the paper's page."""
        form = await request.form()
        token = form.get("token")
        venue = await run_in_threadpool(
            accept_with_token, ctx, proposal_id, token if isinstance(token, str) else ""
        )
        return RedirectResponse(url("paper", venue_id=venue) + f"#proposal-{proposal_id}",
                                status_code=303)  # fmt: skip

    @app.get("/logbooks/{logbook_id}", response_class=HTMLResponse, include_in_schema=False)
    async def logbook(logbook_id: RowId) -> HTMLResponse:
        return await html(cache_key("logbook", logbook_id), record_page("logbook", logbook_id))

    @app.get("/logbooks/{logbook_id}/content", include_in_schema=False)
    async def logbook_content(logbook_id: RowId) -> HTMLResponse:
        response = await html(cache_key("content", logbook_id), record_page("content", logbook_id))
        response.headers["Content-Security-Policy"] = LOGBOOK_CSP + "; frame-ancestors 'self'"
        return response

    @app.get("/files/{name}", include_in_schema=False)
    def files(name: str) -> Response:
        stem, suffix = name[:64], PurePosixPath(name).suffix.lower()
        if (
            len(name) != 64 + len(suffix)
            or suffix not in _MEDIA
            or not all(c in "0123456789abcdef" for c in stem)
        ):
            raise NotFoundError(f"no file {name!r}")
        path = blob_path(ctx.settings.resolved_files_dir(), stem)
        if not path.is_file() or image_type(path) != _MEDIA[suffix]:
            raise NotFoundError(f"no file {name!r}")  # only images, served as what they are
        return FileResponse(
            path,
            media_type=_MEDIA[suffix],
            headers={"Content-Security-Policy": "default-src 'none'",
                     "Cache-Control": "public, max-age=31536000, immutable"},
        )  # fmt: skip

    @app.get("/participants/{handle}", response_class=HTMLResponse, include_in_schema=False)
    async def participant(handle: str) -> HTMLResponse:
        return await html(cache_key("participant", handle), record_page("participant", handle))

    @app.get("/leaderboard", response_class=HTMLResponse, include_in_schema=False)
    async def leaderboard(
        cursor: Annotated[str, Query(max_length=MAX_CURSOR_CHARS)] = "",
    ) -> HTMLResponse:
        return await html(f"leaderboard?{cursor}", leaderboard_page(cursor))

    @app.get("/recheck", response_class=HTMLResponse, include_in_schema=False)
    async def recheck(status: str = "", reason: str = "") -> HTMLResponse:
        def build(tags: set[str]) -> str:
            tags.add(AGGREGATE)
            entries = board_data.recheck_entries(ctx, status or None, reason or None)
            return renderer.render("recheck.html", url, static=False, entries=entries,
                                   status=status, reason=reason, statuses=STATUSES,
                                   reasons=REASONS)  # fmt: skip

        return await html(f"recheck?{status}&{reason}", build)

    if warm:  # every page built ahead, in the background: lists first, then the rest in bulk
        cache.warm([("home", home_page), ("stats", stats_page),
                    ("leaderboard?", leaderboard_page(""))])  # fmt: skip
        cache.warm((f"papers?{s}&id&", papers_page(s, "id", "")) for s in board_data.PAPER_FILTERS)
        total = _page_count(ctx)
        threading.Thread(target=_fill, args=(cache, built_ahead(), total), name="board-fill",
                         daemon=True).start()  # fmt: skip

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, Any]:
        """Up, and how many pages are still waiting to be built ahead (``building``)."""
        return {"status": "ok", "version": __version__, "building": cache.pending()}

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/api/docs", include_in_schema=False)
    def api_docs() -> HTMLResponse:
        return swagger_page(app.title + " - API", "/api/openapi.json")

    @app.get("/api/docs/assets/{name}", include_in_schema=False)
    def api_docs_asset(name: str) -> Response:
        found = swagger_asset(name)
        if found is None:
            raise NotFoundError(f"no file {name!r}")
        return found

    @app.get("/api", include_in_schema=False)
    def api_root() -> RedirectResponse:
        return RedirectResponse("/api/docs")

    app.include_router(api_router(ctx, cache), prefix="/api/v1")
    app.include_router(auth_router(ctx))
    if settle_heap:
        _HeapSettler()()
    return app


class _HeapSettler:
    """Moves every object alive now out of the cyclic garbage collector's sight, at most once
    per ``seconds``.

    A serving process holds a few hundred thousand long-lived objects (the libraries, the
    store's metadata, the cache's entries, the aggregates); each full collection walked all of
    them, about 150 ms with every request waiting, a few times a second under load (measured
    with ``gc.callbacks``: p90 68 ms, p99 134 ms for a cached page; after freezing, 11 ms and
    36 ms). Garbage is collected first, then :func:`gc.freeze` leaves what survived to
    reference counting alone, which still frees it when dropped; only a reference cycle
    formed among frozen objects afterwards would stay. Called once the app is built, after
    the pages were built ahead, and when the cache's background queue empties (rebuilt
    aggregates are new long-lived objects: at 10x the event's size, full collections over
    them grew past 100 ms within a minute of writes)."""

    def __init__(self, seconds: float = 30.0) -> None:
        self.seconds = seconds
        self.last = -float("inf")

    def __call__(self) -> None:
        if time.monotonic() - self.last < self.seconds:
            return
        gc.collect()
        gc.freeze()
        self.last = time.monotonic()


def image_type(path: Path) -> str | None:
    """The image media type that ``path``'s first bytes say it is (PNG, JPEG, GIF, WebP)."""
    with path.open("rb") as handle:
        head = handle.read(16)
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _web_file_url(ref: FileRef) -> str | None:
    suffix = PurePosixPath(ref.path).suffix.lower()
    if suffix not in IMAGE_EXTENSIONS:
        return None
    return f"/files/{ref.sha256}{suffix}"


def _fill(
    cache: PageCache, produce: Iterator[tuple[str, Build, set[str], str]], total: int
) -> None:
    """Build the pages ahead; a failure is logged (each page is then built when asked for)."""
    try:
        cache.fill(produce, total)
    except Exception:
        if not cache.closed:
            _log.exception("building the board's pages ahead failed; they are built on demand")


def _page_count(ctx: ChallengeContext) -> int:
    """How many paper, logbook, content and participant pages the board has."""
    cid = ctx.challenge_id
    with ctx.store.session() as session:
        papers = session.scalar(select(func.count(Paper.id)).where(Paper.challenge_id == cid))
        books = session.scalar(
            select(func.count(Logbook.id)).join(Paper).where(Paper.challenge_id == cid)
        )
        people = session.scalar(
            select(func.count(Participant.id)).where(Participant.challenge_id == cid)
        )
    return (papers or 0) + 2 * (books or 0) + (people or 0)
