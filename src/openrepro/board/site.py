"""`openrepro site build OUT`: the board as plain files for any static host (an HF static Space
included).

The pages are the live board's templates with file links instead of routes; no JavaScript, so
the paper list is pre-built per filter (free-text search needs the live board). Output is
deterministic: the same store gives the same bytes. Rebuilds cost what changed: a build whose
inputs did not change at all (:func:`site_state`: the store's fingerprint, the verdict window,
the settings) is one query and a file check; otherwise each page's inputs are hashed into
``.openrepro-site.json`` and a page whose inputs did not change is not rendered again; files no
longer part of the board are removed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel

from openrepro import __version__
from openrepro.board import data as board_data
from openrepro.board.assemble import Assembler, Records
from openrepro.board.cache import store_version
from openrepro.board.catalogue import record_pages, static_file, static_urls
from openrepro.board.pages import (
    PAGE_SIZE,
    Renderer,
    StaticUrls,
    home_charts,
    page_slice,
)
from openrepro.challenge import ChallengeContext
from openrepro.logbooks.records import FileRef, LogbookRecord
from openrepro.logbooks.render import IMAGE_EXTENSIONS
from openrepro.logbooks.submit import blob_path
from openrepro.outcomes import hidden_papers
from openrepro.recheck import STATUSES

__all__ = ["SiteReport", "build_board_site", "site_state"]

MANIFEST = ".openrepro-site.json"
#: Bump when templates or the renderer change, so every page is rebuilt.
SITE_VERSION = "board-site-3"


class SiteReport(BaseModel):
    out: str
    pages: int  # pages of the board
    rendered: int  # pages rendered in this build (the rest were unchanged)
    written: int  # files whose bytes changed
    removed: int
    files: int  # logbook images copied
    seconds: float


class _Builder:
    def __init__(self, out: Path, previous: dict[str, str]) -> None:
        self.out = out
        self.previous = previous
        self.current: dict[str, str] = {}
        self.rendered = 0
        self.written = 0
        self.made: set[Path] = set()

    def page(self, rel: str, inputs: Any, render: Callable[[], str]) -> None:
        digest = hashlib.sha256(
            (SITE_VERSION + "\0" + json.dumps(inputs, sort_keys=True, default=str)).encode()
        ).hexdigest()
        self.current[rel] = digest
        target = self.out / rel
        if self.previous.get(rel) == digest and target.is_file():
            return
        self.rendered += 1
        content = render().encode("utf-8")
        if target.is_file() and target.read_bytes() == content:
            return
        if target.parent not in self.made:
            target.parent.mkdir(parents=True, exist_ok=True)
            self.made.add(target.parent)
        # not atomic on purpose: the manifest, written last, records only finished pages, so a
        # page cut short by a crash has no digest and is rendered again next time
        target.write_bytes(content)
        self.written += 1


def _dump(items: Iterable[BaseModel]) -> list[Any]:
    return [i.model_dump(mode="json") for i in items]


def site_state(ctx: ChallengeContext) -> str:
    """A digest of everything a build depends on: the store's fingerprint
    (:func:`~openrepro.board.cache.store_version`), the papers still inside their verdict window
    (it closes with time, not with a write), the settings, and the renderer's version."""
    state = [SITE_VERSION, __version__, store_version(ctx), hidden_papers(ctx),
             ctx.settings.model_dump(mode="json")]  # fmt: skip
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()


def _unchanged(out: Path, manifest: dict[str, Any], state: str) -> int | None:
    """The page count of the build in ``out`` when it was made from ``state`` and all its files
    are still there, else None."""
    pages = manifest.get("pages")
    if manifest.get("state") != state or not isinstance(pages, dict):
        return None
    if not all((out / rel).is_file() for rel in pages):
        return None
    return sum(1 for rel in pages if not rel.startswith("files/"))


def build_board_site(
    ctx: ChallengeContext,
    out: Path,
    *,
    progress: Callable[[str, int], None] | None = None,
    force: bool = False,
) -> SiteReport:
    """Write (or update) the static board in ``out``. A build whose inputs did not change since
    the last one (same :func:`site_state`, every file present) returns at once; ``force``
    checks every page anyway."""
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        previous = manifest["pages"]
    except (OSError, ValueError, KeyError, TypeError):
        manifest, previous = {}, {}
    state = site_state(ctx)
    same = None if force or not isinstance(manifest, dict) else _unchanged(out, manifest, state)
    if same is not None:
        return SiteReport(
            out=str(out), pages=same, rendered=0, written=0, removed=0,
            files=sum(1 for rel in previous if rel.startswith("files/")),
            seconds=round(time.perf_counter() - started, 3),
        )  # fmt: skip
    b = _Builder(out, previous if isinstance(previous, dict) else {})
    renderer = Renderer(ctx)

    def tick(label: str, n: int = 1) -> None:
        if progress is not None:
            progress(label, n)

    # -- everything the pages need, in a few bulk queries --
    records = Records(ctx)
    outcomes, stats = records.outcomes, records.stats
    assembler = Assembler(renderer)

    # -- home, lists, leaderboard --
    home = board_data.home_data(ctx, outcomes, stats)
    url0 = StaticUrls(0)
    b.page(
        "index.html",
        home.model_dump(mode="json"),
        lambda: renderer.render(
            "home.html", url0, static=True, data=home, charts=home_charts(home)
        ),
    )
    b.page(
        static_file("stats"),
        home.model_dump(mode="json"),
        lambda: renderer.render(
            "stats.html", url0, static=True, stats=home.stats, charts=home_charts(home)
        ),
    )
    b.page(
        "leaderboard.html",
        _dump(stats.credit),
        partial(renderer.render, "leaderboard.html", url0, static=True, credit=stats.credit),
    )
    url1 = StaticUrls(1)
    queue = board_data.recheck_entries(ctx)
    pending = board_data.unsettled_papers(queue)
    authors = board_data.paper_authors(ctx)
    for status, rows in board_data.rows_by_filter(outcomes, pending, authors).items():
        pages = max(1, -(-len(rows) // PAGE_SIZE))
        for page in range(1, pages + 1):
            shown, _ = page_slice(rows, page)
            name = f"papers/{status}{'' if page == 1 else f'-{page}'}.html"
            b.page(
                name,
                [status, page, pages, len(rows), _dump(shown)],
                partial(
                    renderer.render,
                    "papers.html",
                    url1,
                    static=True,
                    rows=shown,
                    total=len(rows),
                    status=status,
                    query="",
                    author="",
                    sort="id",
                    page=page,
                    pages=pages,
                ),
            )
    for wanted in ("", *STATUSES):
        entries = [e for e in queue if not wanted or e.status == wanted]
        b.page(
            f"recheck{f'-{wanted}' if wanted else ''}.html",
            [wanted, _dump(entries)],
            partial(renderer.render, "recheck.html", url0, static=True, entries=entries,
                    status=wanted, reason="", statuses=STATUSES, reasons=()),
        )  # fmt: skip
    tick("lists")

    # -- the record pages: papers, logbooks (the board page and the participant's own
    # document), participants; listed by the catalogue, built by the assembler --
    files_dir = ctx.settings.resolved_files_dir()
    copied = _FileCopier(files_dir, out / "files")
    manifests = records.manifests()
    record: LogbookRecord | None = None
    for kind, key in record_pages(records):
        rel, url = static_file(kind, key), static_urls(kind)
        if kind == "paper":
            venue_id = str(key)
            inputs: Any = [records.paper(venue_id).model_dump(mode="json"),
                           _dump(records.responses(venue_id))]  # fmt: skip
            render = partial(assembler.paper, records, venue_id, url, static=True)
        elif kind == "logbook":
            logbook_id, record = next(manifests)
            inputs = [records.logbook(logbook_id).model_dump(mode="json"),
                      records.cited_jobs(record)]  # fmt: skip
            render = partial(assembler.logbook, records, logbook_id, record, url, static=True)
        elif kind == "content":
            assert record is not None
            book = records.logbook(int(key)).summary
            inputs = [book.id, book.revision, book.participant]
            render = partial(_content, record, copied, book.participant)
        else:
            inputs = records.participant(str(key)).model_dump(mode="json")
            render = partial(assembler.participant, records, str(key), url, static=True)
        b.page(rel, inputs, render)
        if kind != "content":
            tick(f"{kind}s")

    # -- images referenced by logbooks that were rendered earlier stay listed --
    for rel in previous:
        if rel.startswith("files/") and rel not in b.current and (out / rel).is_file():
            b.current[rel] = previous[rel]
    for rel in copied.names:
        b.current[rel] = "file"

    removed = 0
    for rel in sorted(set(previous) - set(b.current)):
        target = out / rel
        if target.is_file():
            target.unlink()
            removed += 1
    manifest_path.write_text(
        json.dumps({"version": SITE_VERSION, "state": state,
                    "pages": dict(sorted(b.current.items()))}, indent=0, sort_keys=True) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    pages = sum(1 for rel in b.current if not rel.startswith("files/"))
    return SiteReport(
        out=str(out), pages=pages, rendered=b.rendered, written=b.written, removed=removed,
        files=len(copied.names), seconds=round(time.perf_counter() - started, 3),
    )  # fmt: skip


class _FileCopier:
    """Copies logbook images into ``files/`` once, named by content hash."""

    def __init__(self, source: Path, target: Path) -> None:
        self.source, self.target = source, target
        self.names: set[str] = set()

    def url(self, ref: FileRef, prefix: str) -> str | None:
        suffix = PurePosixPath(ref.path).suffix.lower()
        if suffix not in IMAGE_EXTENSIONS:
            return None
        blob = blob_path(self.source, ref.sha256)
        if not blob.is_file():
            return None
        name = f"{ref.sha256}{suffix}"
        dest = self.target / name
        if not dest.exists():
            self.target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(blob, dest)
        self.names.add(f"files/{name}")
        return f"{prefix}files/{name}"


def _content(record: LogbookRecord, copier: _FileCopier, participant: str) -> str:
    return Assembler.content(record, participant, lambda ref: copier.url(ref, "../../"))
