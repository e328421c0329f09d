"""XSS: hostile logbooks (a real Trackio logbook made with the trackio CLI, and a bundle) and
hostile paper texts (title, abstract, authors, claim text, participant name and team) on the
live board and in the static site, opened in Chromium: no dialog, no script runs (the canary
``window.__pwned`` stays unset in every frame), no request leaves the board's origin.

One challenge and one browser page per board for the whole module (the machine is shared).
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from board_fixtures import HOSTILE, hostile_bundle, live_board
from cases import _call
from sqlalchemy import select

from openrepro.board import build_board_site
from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.claims import add_claim
from openrepro.identity import register
from openrepro.logbooks.submit import submit_logbook
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import import_papers
from openrepro.store import Logbook
from openrepro.workspace import pull_paper

#: One payload per trick; each would set ``window.__pwned``, open a dialog or fetch evil.example.
PAYLOADS = [
    '<script>window.__pwned="script";alert(1)</script>',
    '"><img src=x onerror="window.__pwned=\'onerror\'">',
    "'><svg onload=\"window.__pwned='svg'\"><script>alert(2)</script></svg>",
    "<a href=\"javascript:window.__pwned='js-href'\">click</a>",
    "[md link](javascript:window.__pwned='md-link') ![md img](http://evil.example/i.png)",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    '<svg><image href="http://evil.example/svg.png"/><use href="http://evil.example/u#x"/></svg>',
    '<div style="background:url(http://evil.example/css)">css</div>',
    "<style>@import 'http://evil.example/imp.css'; body{background:url(//evil.example/b)}</style>",
    '<base href="http://evil.example/"><meta http-equiv="refresh" content="0;url=http://evil.example/">',
    '<link rel="stylesheet" href="http://evil.example/l.css"><iframe src="http://evil.example/f">',
    '<object data="http://evil.example/o"></object><embed src="http://evil.example/e">',
    "<form action=http://evil.example/f><button>go</button></form>",
    "\u202e<script>window.__pwned='bidi'</script>\u200b＜script＞alert(3)＜/script＞",
    "<scr<script>ipt>window.__pwned='nested'</scr</script>ipt>",
    '{{7*7}} {% raw %}${alert(4)}{% endraw %} <noscript><p title="</noscript><img src=x '
    "onerror=window.__pwned='mxss'>\">",
    "<details open ontoggle=\"window.__pwned='toggle'\">x</details>",
    "<math><mtext><table><mglyph><style><img src=x onerror=window.__pwned='math'>",
]
EVIL = " ".join(PAYLOADS)


def _trackio_logbook(ctx: ChallengeContext, ws: Path) -> Path:
    """A real Trackio logbook (trackio CLI): a hostile markdown cell and a hostile run."""
    page = pull_paper(ctx, "p1", ws).pages["p1/C1"]
    trackio = str(Path(sys.executable).parent / "trackio")
    (ws / "evil.py").write_text(f"print({EVIL!r})\n", encoding="utf-8")
    _call(ws, trackio, "logbook", "run", "--page", page, "--", sys.executable, "evil.py")
    _call(ws, trackio, "logbook", "cell", "markdown", EVIL, "--page", page)
    return ws


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ChallengeContext, Path]]:
    root = tmp_path_factory.mktemp("xss")
    ctx = init_challenge(root / "ch", "xss", title=f"XSS {PAYLOADS[0]}")
    records = [
        PaperRecord(venue_id="p1", title=f"Paper {EVIL}",
                    abstract=f"It reaches 88.1 average accuracy. {EVIL} {HOSTILE}",
                    authors=[PAYLOADS[1], PAYLOADS[3]]),
    ]  # fmt: skip
    import_papers(ctx.store, ctx.challenge_id, records, source="test")
    with ctx.store.session() as session:
        quote = "reaches 88.1 average accuracy"
        add_claim(session, ctx.challenge_id, "p1", text=f"Reaches 88.1% accuracy {EVIL}",
                  kind="result", quotes=[quote], editor="org", drafting="rules")  # fmt: skip
    register(ctx, "mallory", name=PAYLOADS[2], team=PAYLOADS[9])
    register(ctx, "trinity", name=PAYLOADS[4], team=PAYLOADS[8])
    submit_logbook(ctx, hostile_bundle(root / "bundle"), handle="mallory")
    submit_logbook(ctx, _trackio_logbook(ctx, root / "ws"), handle="trinity")
    yield ctx, root
    ctx.close()


class Watch:
    """Dialogs and requests to a foreign origin seen by one page."""

    def __init__(self, page: Any, origin: str) -> None:
        self.dialogs: list[str] = []
        self.foreign: list[str] = []
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))

        def request(r: Any) -> None:
            parsed = urlparse(r.url)
            if parsed.scheme in {"data", "blob", "about"}:
                return
            if f"{parsed.scheme}://{parsed.netloc}" != origin:
                self.foreign.append(r.url)

        page.on("request", request)


def _visit(browser: Any, base: str, paths: list[str]) -> None:
    page = browser.new_page()
    watch = Watch(page, base)
    try:
        for path in paths:
            reply = page.goto(base + path)
            assert reply is not None and reply.status == 200, path
            page.wait_for_load_state("load")
            hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
            for frame in page.frames:
                assert frame.evaluate("() => window.__pwned ?? null") is None, (path, frame.url)
                hrefs += frame.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
            bad = [h for h in hrefs if h.lower().startswith(("javascript:", "data:", "vbscript:"))]
            assert bad == [], (path, bad)
            assert watch.foreign == [], (path, watch.foreign)
        assert watch.dialogs == [], watch.dialogs
    finally:
        page.close()


def _pages(ctx: ChallengeContext, static: bool) -> list[str]:
    with ctx.store.session() as session:
        books = list(session.scalars(select(Logbook.id).order_by(Logbook.id)))
    assert len(books) == 2
    if static:
        return ["/index.html", "/leaderboard.html", *[f"/logbooks/{b}.html" for b in books]]
    return ["/", "/papers", "/papers/p1", "/papers?q=script", "/participants/mallory",
            "/participants/trinity", "/leaderboard",
            *[f"/logbooks/{b}" for b in books]]  # fmt: skip


def test_hostile_texts_run_nothing_on_the_live_board(browser: Any, hostile: Any) -> None:
    ctx, _ = hostile
    with live_board(ctx) as base:
        _visit(browser, base, _pages(ctx, static=False))


def test_hostile_texts_run_nothing_in_the_static_site(browser: Any, hostile: Any) -> None:
    ctx, root = hostile
    out = root / "site"
    build_board_site(ctx, out)
    html = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html"))
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        # every page of the paper and the participants, wherever the site puts them
        extra = [f"/{p}" for p in html if p.startswith(("papers/", "participants/", "logbooks/"))]
        extra = [p for p in extra if p not in _pages(ctx, static=True)]
        assert any(p.startswith("/papers/p/") for p in extra), html
        _visit(browser, base, [*_pages(ctx, static=True), *extra[:10]])
    finally:
        server.shutdown()
