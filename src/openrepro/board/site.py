"""`openrepro site build OUT`: the board as plain files for any static host (an HF static Space
included).

The pages are the live board's templates with file links instead of routes; no JavaScript, so
the paper list is pre-built per filter (free-text search needs the live board). Every page is
listed by the catalogue (:mod:`openrepro.board.catalogue`), built by the same code as the
live board's (:class:`~openrepro.board.lists.ListPages`,
:class:`~openrepro.board.assemble.Assembler`). Output is deterministic: the same store gives
the same bytes.

Rebuilds cost what changed, through the store's change journal
(:mod:`openrepro.store.journal`): ``.openrepro-site.json`` keeps the journal's id the build read
and each page's tags (the records it shows); the next build reads the journal's rows since
that id and renders again only the pages whose tags they mark (every list page when anything
was marked), the pages that are new or missing, and every page when the journal could not
narrow a change or the settings or openrepro's version differ. A build after no change at all
is one query and a file check; files no longer part of the board are removed.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel

from openrepro import __version__
from openrepro.board.assemble import Assembler, Records
from openrepro.board.cache import Aggregates, PageCache
from openrepro.board.catalogue import (
    list_pages,
    record_pages,
    record_tags,
    static_file,
    static_urls,
)
from openrepro.board.lists import ListPages
from openrepro.board.pages import Renderer
from openrepro.challenge import ChallengeContext
from openrepro.logbooks.records import FileRef, LogbookRecord
from openrepro.logbooks.render import IMAGE_EXTENSIONS
from openrepro.logbooks.submit import blob_path
from openrepro.outcomes import hidden_papers
from openrepro.store.journal import AGGREGATE, EVERYTHING, paper_tag, read_changes

__all__ = ["SiteReport", "build_board_site", "site_state"]

MANIFEST = ".openrepro-site.json"
#: Bump when templates or the renderer change, so every page is rebuilt.
SITE_VERSION = "board-site-4"


class SiteReport(BaseModel):
    out: str
    pages: int  # pages of the board
    rendered: int  # pages rendered in this build (the rest were unchanged)
    written: int  # files whose bytes changed
    removed: int
    files: int  # logbook images copied
    seconds: float


class _Builder:
    """Writes the pages that ``changed`` touches (None: every page), or that are missing."""

    def __init__(self, out: Path, previous: dict[str, Any], changed: set[str] | None) -> None:
        self.out = out
        self.previous = previous
        self.changed = changed
        self.current: dict[str, Any] = {}
        self.rendered = 0
        self.written = 0
        self.made: set[Path] = set()

    def stale(self, rel: str, tags: set[str]) -> bool:
        if self.changed is None or rel not in self.previous or not (self.out / rel).is_file():
            return True
        return bool(tags & self.changed) or (AGGREGATE in tags and bool(self.changed))

    def page(self, rel: str, tags: set[str], render: Callable[[], str]) -> None:
        self.current[rel] = sorted(tags)
        if not self.stale(rel, tags):
            return
        self.rendered += 1
        target = self.out / rel
        content = render().encode("utf-8")
        if target.is_file() and target.read_bytes() == content:
            return
        if target.parent not in self.made:
            target.parent.mkdir(parents=True, exist_ok=True)
            self.made.add(target.parent)
        # not atomic on purpose: the manifest, written last, records only finished pages, so a
        # page cut short by a crash is not listed and is rendered again next time
        target.write_bytes(content)
        self.written += 1


def site_state(ctx: ChallengeContext) -> str:
    """A digest of what every page depends on besides the store: the renderer's version,
    openrepro's and the settings (another value rebuilds every page)."""
    state = [SITE_VERSION, __version__, ctx.settings.model_dump(mode="json")]
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()


def build_board_site(
    ctx: ChallengeContext,
    out: Path,
    *,
    progress: Callable[[str, int], None] | None = None,
    force: bool = False,
) -> SiteReport:
    """Write (or update) the static board in ``out``: only the pages the store's change
    journal marked since the last build (see the module docstring); ``force`` renders every
    page again."""
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        previous, files = dict(manifest["pages"]), list(manifest.get("files", []))
        head, was_hidden = manifest.get("head"), set(manifest.get("hidden", []))
        if manifest.get("state") != site_state(ctx) or not isinstance(head, int):
            head = None
    except (OSError, ValueError, KeyError, TypeError):
        previous, files, head, was_hidden = {}, [], None, set()
    # the journal is read before the store, so a write made during the build is seen by the
    # next build too (rendered twice, never missed)
    with ctx.store.session() as session:
        change = read_changes(session, None if force else head)
    hidden = hidden_papers(ctx)
    changed: set[str] | None = change.tags | {paper_tag(p) for p in was_hidden ^ set(hidden)}
    if changed is not None and EVERYTHING in changed:
        changed = None
    if changed == set() and all((out / rel).is_file() for rel in [*previous, *files]):
        return SiteReport(
            out=str(out), pages=len(previous), rendered=0, written=0, removed=0,
            files=len(files), seconds=round(time.perf_counter() - started, 3),
        )  # fmt: skip
    b = _Builder(out, previous, changed)
    renderer = Renderer(ctx)

    def tick(label: str, n: int = 1) -> None:
        if progress is not None:
            progress(label, n)

    # the challenge-wide figures, computed once for the build (nothing is checked in between)
    render: Callable[[], str]
    cache = PageCache(ctx, seconds=math.inf)
    data = Aggregates(ctx, cache)
    try:
        # -- home, stats, leaderboard, paper lists, re-check queue --
        lists = ListPages(renderer, data)
        for kind, params in list_pages(data):
            render = partial(lists.render, kind, static_urls(kind), static=True, **params)
            b.page(static_file(kind, **params), {AGGREGATE}, render)
        tick("lists")

        # -- the record pages: papers, logbooks (the board page and the participant's own
        # document), participants; listed by the catalogue, built by the assembler --
        records = Records(ctx, stats=data.stats(), outcomes=data.outcomes(),
                          recheck=data.recheck())  # fmt: skip
    finally:
        cache.close()
    assembler = Assembler(renderer)
    copied = _FileCopier(ctx.settings.resolved_files_dir(), out / "files")
    manifests = records.manifests()
    record: LogbookRecord | None = None
    for kind, key in record_pages(records):
        rel, url = static_file(kind, key), static_urls(kind)
        if kind == "paper":
            render = partial(assembler.paper, records, str(key), url, static=True)
        elif kind == "logbook":
            logbook_id, record = next(manifests)
            render = partial(assembler.logbook, records, logbook_id, record, url, static=True)
        elif kind == "content":
            assert record is not None
            render = partial(
                _content, record, copied, records.logbook(int(key)).summary.participant
            )
        else:
            render = partial(assembler.participant, records, str(key), url, static=True)
        b.page(rel, record_tags(records, kind, key), render)
        if kind != "content":
            tick(f"{kind}s")

    # -- images: those of the logbooks rendered now, and those of pages kept as they were --
    images = set(copied.names) | {rel for rel in files if (out / rel).is_file()}
    removed = 0
    for rel in sorted((set(previous) | set(files)) - set(b.current) - images):
        target = out / rel
        if target.is_file():
            target.unlink()
            removed += 1
    manifest_path.write_text(
        json.dumps({"version": SITE_VERSION, "state": site_state(ctx), "head": change.head,
                    "hidden": sorted(hidden), "pages": dict(sorted(b.current.items())),
                    "files": sorted(images)}, indent=0, sort_keys=True) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    return SiteReport(
        out=str(out), pages=len(b.current), rendered=b.rendered, written=b.written,
        removed=removed, files=len(images), seconds=round(time.perf_counter() - started, 3),
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
