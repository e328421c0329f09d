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
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel
from sqlalchemy import func, select

from openrepro import __version__
from openrepro.board import data as board_data
from openrepro.board.cache import store_version
from openrepro.board.pages import (
    PAGE_SIZE,
    Renderer,
    StaticUrls,
    home_charts,
    page_slice,
    slug,
)
from openrepro.challenge import ChallengeContext
from openrepro.claims.records import ClaimView
from openrepro.claims.service import key_order
from openrepro.claims.values import Scale
from openrepro.jobs import list_jobs
from openrepro.logbooks.records import FileRef, LogbookRecord
from openrepro.logbooks.render import IMAGE_EXTENSIONS, render_logbook
from openrepro.logbooks.revisions import latest_logbook_ids
from openrepro.logbooks.service import LogbookSummary, logbook_summary
from openrepro.logbooks.submit import blob_path
from openrepro.outcomes import (
    author_responses,
    claim_consensus,
    compute_stats,
    hidden_papers,
    paper_outcomes,
)
from openrepro.papers.records import PaperDetail
from openrepro.recheck import STATUSES
from openrepro.store import Claim, Logbook, Paper, Participant

__all__ = ["SiteReport", "build_board_site", "site_state"]

MANIFEST = ".openrepro-site.json"
#: Bump when templates or the renderer change, so every page is rebuilt.
SITE_VERSION = "board-site-1"


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


def _details(ctx: ChallengeContext) -> dict[str, PaperDetail]:
    claims = (
        select(Claim.paper_id, func.count(Claim.id).label("n"))
        .where(Claim.status == "active")
        .group_by(Claim.paper_id)
        .subquery()
    )
    query = (
        select(
            Paper.venue_id, Paper.title, Paper.authors, Paper.status, Paper.track,
            func.coalesce(claims.c.n, 0).label("claims"),
            Paper.full_text.is_not(None).label("has_full_text"), Paper.abstract,
            Paper.decision, Paper.site_url, Paper.pdf_url, Paper.arxiv_id, Paper.keywords,
            Paper.source, Paper.licence,
            func.coalesce(func.length(Paper.full_text), 0).label("full_text_chars"),
            Paper.created_at, Paper.updated_at,
        )
        .outerjoin(claims, claims.c.paper_id == Paper.id)
        .where(Paper.challenge_id == ctx.challenge_id)
    )  # fmt: skip
    with ctx.store.session() as session:
        rows = session.execute(query).mappings().all()
    return {r["venue_id"]: PaperDetail.model_validate(dict(r)) for r in rows}


def _claims(ctx: ChallengeContext) -> dict[str, list[ClaimView]]:
    """Active claims per paper, in key order, read in one query (no edit history)."""
    query = (
        select(
            Claim.key,
            Claim.text,
            Claim.kind,
            Claim.status,
            Claim.origin,
            Claim.created_at,
            Paper.venue_id,
        )
        .join(Paper, Paper.id == Claim.paper_id)
        .where(Paper.challenge_id == ctx.challenge_id, Claim.status == "active")
        .order_by(Paper.venue_id, Claim.id)
    )
    out: dict[str, list[ClaimView]] = defaultdict(list)
    with ctx.store.session() as session:
        for key, text, kind, status, origin, created_at, venue_id in session.execute(query):
            out[venue_id].append(
                ClaimView.model_construct(
                    id=f"{venue_id}/{key}", paper_id=venue_id, key=key, text=text, kind=kind,
                    status=status, origin=origin, quotes=[], reported=[], scale=Scale(),
                    provenance={}, created_at=created_at, edits=[],
                )
            )  # fmt: skip
    for views in out.values():
        views.sort(key=lambda v: key_order(v.key))
    return out


def _logbooks(ctx: ChallengeContext) -> tuple[list[LogbookSummary], dict[int, dict[str, Any]]]:
    """Every logbook's summary and manifest, in id order, read in one query."""
    query = (
        select(Logbook, Paper.venue_id, Participant.handle)
        .join(Paper, Paper.id == Logbook.paper_id)
        .join(Participant, Participant.id == Logbook.participant_id)
        .where(Paper.challenge_id == ctx.challenge_id)
        .order_by(Logbook.id)
    )
    books: list[LogbookSummary] = []
    manifests: dict[int, dict[str, Any]] = {}
    with ctx.store.session() as session:
        current = set(latest_logbook_ids(session, ctx.challenge_id))
        for book, venue_id, handle in session.execute(query):
            books.append(logbook_summary(book, venue_id, handle, current=book.id in current))
            manifests[book.id] = book.manifest
    return books, manifests


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
    outcomes = paper_outcomes(ctx, public=True)
    by_venue = {o.paper: o for o in outcomes}
    stats = compute_stats(ctx, public=True)
    details = _details(ctx)
    consensus: dict[int, dict[str, Any]] = defaultdict(dict)
    for c in claim_consensus(ctx, public=True):
        consensus[c.paper_id][c.key] = c
    cells = board_data.verdict_cells(ctx)
    by_paper: dict[str, list[board_data.VerdictCell]] = defaultdict(list)
    by_logbook: dict[int, list[board_data.VerdictCell]] = defaultdict(list)
    by_person: dict[str, list[board_data.VerdictCell]] = defaultdict(list)
    for cell in cells:
        by_paper[cell.paper].append(cell)
        by_logbook[cell.logbook_id].append(cell)
        by_person[cell.participant].append(cell)
    claims = _claims(ctx)
    books, manifests = _logbooks(ctx)
    with ctx.store.session() as session:
        people = session.execute(
            select(Participant.handle, Participant.name, Participant.team, Participant.role)
            .where(Participant.challenge_id == ctx.challenge_id)
            .order_by(Participant.handle)
        ).all()
        titles = dict(
            session.execute(
                select(Paper.venue_id, Paper.title).where(Paper.challenge_id == ctx.challenge_id)
            ).all()
        )
    books_of_paper: dict[str, list[LogbookSummary]] = defaultdict(list)
    books_of_person: dict[str, list[LogbookSummary]] = defaultdict(list)
    for book in books:
        books_of_person[book.participant].append(book)
    for book in books:
        if book.current:
            books_of_paper[book.paper_id].append(book)
    siblings: dict[tuple[str, str], list[int]] = defaultdict(list)
    for book in books:
        siblings[(book.paper_id, book.participant)].append(book.id)

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
        "leaderboard.html",
        _dump(stats.credit),
        partial(renderer.render, "leaderboard.html", url0, static=True, credit=stats.credit),
    )
    url1 = StaticUrls(1)
    queue = board_data.recheck_entries(ctx)
    pending = {e.paper for e in queue if e.status in board_data.OPEN_RECHECK}
    for status in board_data.PAPER_FILTERS:
        rows = board_data.paper_rows(ctx, status=status, outcomes=outcomes, pending=pending)
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

    # -- papers --
    responses: dict[str, list[Any]] = defaultdict(list)
    for answer in author_responses(ctx):
        responses[answer.paper].append(answer)
    url2 = StaticUrls(2)
    for venue_id, detail in details.items():
        outcome = by_venue[venue_id]
        grid: dict[str, dict[int, board_data.VerdictCell]] = defaultdict(dict)
        for cell in by_paper.get(venue_id, []):
            grid[cell.claim_key][cell.logbook_id] = cell
        pdata = board_data.PaperData(
            paper=detail, outcome=outcome, claims=claims.get(venue_id, []),
            consensus=consensus.get(outcome.paper_id, {}),
            logbooks=sorted(books_of_paper.get(venue_id, []), key=lambda x: x.id), cells=grid,
        )  # fmt: skip
        answers = responses.get(venue_id, [])
        b.page(
            f"papers/p/{slug(venue_id)}.html",
            [pdata.model_dump(mode="json"), _dump(answers)],
            partial(renderer.render, "paper.html", url2, static=True, data=pdata,
                    responses=answers),
        )  # fmt: skip
        tick("papers")

    # -- logbooks: the board page and the participant's own document --
    files_dir = ctx.settings.resolved_files_dir()
    copied = _FileCopier(files_dir, out / "files")
    jobs = _Jobs(ctx)
    for book in books:
        key = (book.paper_id, book.participant)
        later = [i for i in siblings[key] if i > book.id]
        ldata = board_data.LogbookData(
            summary=book, paper_title=titles.get(book.paper_id, ""),
            verdicts=by_logbook.get(book.id, []),
            older_revisions=[i for i in siblings[key] if i < book.id],
            newer_revision=later[-1] if later else None,
        )  # fmt: skip
        cited = jobs.cited(manifests[book.id])
        b.page(
            f"logbooks/{book.id}.html",
            [ldata.model_dump(mode="json"), cited],
            partial(renderer.render, "logbook.html", url1, static=True, data=ldata, jobs=cited),
        )
        b.page(
            f"logbooks/{book.id}/index.html",
            [book.id, book.revision, book.participant],
            partial(_content, manifests[book.id], copied, book.participant),
        )
        tick("logbooks")

    # -- participants --
    for handle, name, team, role in people:
        mine = next((c for c in stats.credit if c.handle == handle), None)
        pdata2 = board_data.ParticipantData(
            handle=handle, name=name, team=team, role=role,
            logbooks=books_of_person.get(handle, []), verdicts=by_person.get(handle, []),
            credit=mine.credit if mine else 0, verified=mine.verified if mine else 0,
            falsified=mine.falsified if mine else 0,
        )  # fmt: skip
        b.page(
            f"participants/{slug(handle)}.html",
            pdata2.model_dump(mode="json"),
            partial(renderer.render, "participant.html", url1, static=True, data=pdata2),
        )
        tick("participants")

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


class _Jobs:
    """Compute jobs cited by logbooks, looked up in one query (nothing when there are none)."""

    def __init__(self, ctx: ChallengeContext) -> None:
        self.by_ref = {job.id: job.model_dump(mode="json") for job in list_jobs(ctx)}

    def cited(self, manifest: dict[str, Any]) -> list[dict[str, Any]]:
        if not self.by_ref:
            return []
        record = LogbookRecord.model_validate(manifest)
        return board_data.cited_jobs(record, self.by_ref.get)


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


def _content(manifest: dict[str, Any], copier: _FileCopier, participant: str) -> str:
    record = LogbookRecord.model_validate(manifest)
    return render_logbook(
        record, file_url=lambda ref: copier.url(ref, "../../"), participant=participant
    )
