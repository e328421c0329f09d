"""Rendered pages and API answers of the board, kept until what they show changes.

Every cached value carries *tags* naming what it was built from: ``paper:<id>`` (a paper's row,
claims, logbooks, verdicts, edits, re-check decisions, author responses), ``participant:<id>``
(a participant's logbooks, verdicts, credit and jobs), and ``aggregate`` (a figure over the whole
challenge: the home page, the paper lists, the leaderboard, credit). At most once per
``seconds`` one thread compares the store's fingerprint (:func:`store_version`, one query); when
it moved, :func:`changed_since` reads which papers and participants the new rows touch, and:

- values tagged with a touched paper or participant are dropped and queued to be rendered
  again in the background (so a verdict on paper A refreshes A's pages and leaves paper B's);
- values tagged ``aggregate`` are marked stale: they are still served, and rebuilt in the
  background when asked for, at most once per ``aggregate_seconds`` each;
- a change that cannot be narrowed (rows deleted, the challenge frozen) drops everything.

A value is built once however many requests ask for it at the same time (the others wait for
that build). ``warm`` queues values to be built ahead one by one by the background worker, and
``fill`` stores values built ahead in bulk (every page of the board from one read of the store),
so pages nobody asked for yet are ready when someone does.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import func, or_, select

from openrepro.board import data as board_data
from openrepro.challenge import ChallengeContext
from openrepro.errors import NotFoundError
from openrepro.outcomes import PaperOutcome, Stats, compute_stats, hidden_papers, paper_outcomes
from openrepro.store import (
    Challenge,
    Claim,
    ClaimEdit,
    Job,
    Logbook,
    Paper,
    Participant,
    Verdict,
    VerdictEdit,
)
from openrepro.store.tables_organizer import AuthorResponse, RecheckDecision, RecheckRun
from openrepro.store.tables_outcomes import OutcomeMark
from openrepro.store.tables_provenance import Replay

T = TypeVar("T")

__all__ = [
    "AGGREGATE",
    "Aggregates",
    "Change",
    "PageCache",
    "changed_since",
    "paper_marks",
    "paper_tag",
    "participant_tag",
    "store_version",
]

#: The tag of values computed over the whole challenge (rebuilt with a debounce).
AGGREGATE = "aggregate"
#: A stale aggregate is rebuilt at most once per this many times what building it costs.
COST_FACTOR = 10.0

Build = Callable[[set[str]], Any]


def paper_tag(paper_id: int) -> str:
    return f"paper:{paper_id}"


def participant_tag(participant_id: int) -> str:
    return f"participant:{participant_id}"


# The fingerprint's parts, by name; ``changed_since`` reads the watermarks back by these names.
_PARTS = (
    "paper_updated", "papers", "claims", "claim_id", "claim_edit_id", "logbooks", "logbook_id",
    "verdicts", "verdict_id", "verdict_created", "verdict_edits", "verdict_edit_id",
    "participants", "participant_id", "jobs", "job_updated", "recheck_run_id",
    "recheck_decision_id", "author_response_id", "replay_id", "frozen_at", "marks", "marked",
)  # fmt: skip
_COUNTS = ("papers", "claims", "logbooks", "verdicts", "verdict_edits", "participants", "jobs")


def store_version(ctx: ChallengeContext) -> tuple[Any, ...]:
    """A fingerprint that changes whenever anything the board shows changes: per table the
    row count and the newest id (or update time, for rows updated in place: papers, jobs, a
    verdict judged again after a replay), and the challenge's freeze. One query of scalar
    subqueries over primary keys and indexed columns, and the store's change journal (the sum
    and count of :func:`paper_marks`), which sees what the triggers see: a participant's team
    confirmed or dropped moves the marks of the papers it has logbooks on."""
    cid = ctx.challenge_id
    parts = [
        select(func.max(Paper.updated_at)).where(Paper.challenge_id == cid),
        select(func.count(Paper.id)).where(Paper.challenge_id == cid),
        select(func.count(Claim.id)),
        select(func.max(Claim.id)),
        select(func.max(ClaimEdit.id)),
        select(func.count(Logbook.id)),
        select(func.max(Logbook.id)),
        select(func.count(Verdict.id)),
        select(func.max(Verdict.id)),
        select(func.max(Verdict.created_at)),
        select(func.count(VerdictEdit.id)),
        select(func.max(VerdictEdit.id)),
        select(func.count(Participant.id)).where(Participant.challenge_id == cid),
        select(func.max(Participant.id)),
        select(func.count(Job.id)),
        select(func.max(Job.updated_at)),
        select(func.max(RecheckRun.id)),
        select(func.max(RecheckDecision.id)),
        select(func.max(AuthorResponse.id)),
        select(func.max(Replay.id)),
        select(Challenge.frozen_at).where(Challenge.id == cid),
        # the store's change journal: triggers bump a paper's mark in the same transaction as
        # any change to its verdicts, edits, logbooks, claims, or its participants' teams
        select(func.sum(OutcomeMark.mark)).where(OutcomeMark.challenge_id == cid),
        select(func.count(OutcomeMark.paper_id)).where(OutcomeMark.challenge_id == cid),
    ]
    with ctx.store.session() as session:
        return tuple(session.execute(select(*(q.scalar_subquery() for q in parts))).one())


@dataclass
class Change:
    """What moved between two fingerprints: ``everything`` when it cannot be narrowed."""

    everything: bool = False
    moved: bool = False  # anything at all: aggregates are stale
    papers: set[int] = field(default_factory=set)
    participants: set[int] = field(default_factory=set)

    def tags(self) -> set[str]:
        return {paper_tag(p) for p in self.papers} | {participant_tag(p) for p in self.participants}


def paper_marks(ctx: ChallengeContext) -> dict[int, int]:
    """The store's change journal for this challenge: each paper's mark (bumped by triggers in
    the same transaction as any change to the paper's verdicts, verdict edits, logbooks,
    claims, or its participants' handles and teams; see
    :mod:`openrepro.store.tables_outcomes`)."""
    with ctx.store.session() as session:
        rows = session.execute(
            select(OutcomeMark.paper_id, OutcomeMark.mark).where(
                OutcomeMark.challenge_id == ctx.challenge_id
            )
        ).all()
    return {int(paper): int(mark) for paper, mark in rows}


def changed_since(
    ctx: ChallengeContext,
    old: tuple[Any, ...],
    new: tuple[Any, ...],
    marks: dict[int, int] | None = None,
) -> Change:
    """The papers and participants whose pages rows written between fingerprints ``old`` and
    ``new`` touch (a few indexed queries over the new rows only). Participants with a logbook
    on a touched paper are touched too (their verdicts show that paper's claims and edits).

    ``marks`` is the journal (:func:`paper_marks`) as the caller last read it: papers whose
    mark moved since are touched, and ``marks`` is brought up to date in place. Without it, a
    moved journal cannot be narrowed (everything changed)."""
    was, now = dict(zip(_PARTS, old, strict=True)), dict(zip(_PARTS, new, strict=True))
    if was["frozen_at"] != now["frozen_at"] or any((now[k] or 0) < (was[k] or 0) for k in _COUNTS):
        return Change(
            everything=True, moved=True
        )  # frozen, or rows deleted: nothing to narrow it to
    papers: set[int] = set()
    if (now["marks"], now["marked"]) != (was["marks"], was["marked"]):
        if marks is None:
            return Change(everything=True, moved=True)
        # read after the fingerprint, so it can only hold more than ``new`` says: a write
        # between the two reads is applied now, and seen as nothing new next time
        current = paper_marks(ctx)
        papers |= {paper for paper, mark in current.items() if marks.get(paper) != mark}
        marks.clear()
        marks.update(current)
    people: set[int] = set()

    def newer(column: Any, key: str) -> Any:
        """Rows written after the old fingerprint's ``key`` (an id or a time; every row when
        the table was empty)."""
        return column.is_not(None) if was[key] is None else column > was[key]

    with ctx.store.session() as session:
        if now["paper_updated"] != was["paper_updated"]:
            papers |= set(
                session.scalars(
                    select(Paper.id).where(
                        Paper.challenge_id == ctx.challenge_id,
                        newer(Paper.updated_at, "paper_updated"),
                    )
                )
            )
        if now["claim_id"] != was["claim_id"]:
            papers |= set(
                session.scalars(select(Claim.paper_id).where(newer(Claim.id, "claim_id")))
            )
        if now["claim_edit_id"] != was["claim_edit_id"]:
            papers |= set(
                session.scalars(
                    select(Claim.paper_id)
                    .join(ClaimEdit, ClaimEdit.claim_id == Claim.id)
                    .where(newer(ClaimEdit.id, "claim_edit_id"))
                )
            )
        for table, key in (
            (RecheckRun, "recheck_run_id"),
            (RecheckDecision, "recheck_decision_id"),
        ):
            if now[key] != was[key]:
                papers |= set(
                    session.scalars(
                        select(Claim.paper_id)
                        .join(table, table.claim_id == Claim.id)
                        .where(newer(table.id, key))
                    )
                )
        if now["author_response_id"] != was["author_response_id"]:
            papers |= set(
                session.scalars(
                    select(AuthorResponse.paper_id).where(
                        newer(AuthorResponse.id, "author_response_id")
                    )
                )
            )
        books: list[Any] = []
        if now["logbook_id"] != was["logbook_id"]:
            books.append(select(Logbook.id).where(newer(Logbook.id, "logbook_id")))
        verdict_moved = (now["verdict_id"], now["verdict_created"]) != (
            was["verdict_id"],
            was["verdict_created"],
        )
        if verdict_moved:
            books.append(
                select(Verdict.logbook_id).where(
                    or_(
                        newer(Verdict.id, "verdict_id"),
                        newer(Verdict.created_at, "verdict_created"),
                    )
                )
            )
        if now["verdict_edit_id"] != was["verdict_edit_id"]:
            books.append(
                select(Verdict.logbook_id)
                .join(VerdictEdit, VerdictEdit.verdict_id == Verdict.id)
                .where(newer(VerdictEdit.id, "verdict_edit_id"))
            )
        if now["replay_id"] != was["replay_id"]:
            books.append(select(Replay.logbook_id).where(newer(Replay.id, "replay_id")))
        for ids in books:
            for paper, person in session.execute(
                select(Logbook.paper_id, Logbook.participant_id).where(Logbook.id.in_(ids))
            ):
                papers.add(paper)
                people.add(person)
        if now["job_updated"] != was["job_updated"]:
            jobs = select(Job.paper_id, Job.participant_id).where(
                Job.challenge_id == ctx.challenge_id, newer(Job.updated_at, "job_updated")
            )
            for job_paper, job_person in session.execute(jobs):
                papers.update([job_paper] if job_paper is not None else [])
                people.update([job_person] if job_person is not None else [])
    return Change(moved=True, papers=papers, participants=people | _participants_of(ctx, papers))


def _participants_of(ctx: ChallengeContext, papers: set[int]) -> set[int]:
    """Participants with a logbook on one of ``papers``."""
    if not papers:
        return set()
    with ctx.store.session() as session:
        return set(
            session.scalars(
                select(Logbook.participant_id).where(Logbook.paper_id.in_(papers)).distinct()
            )
        )


@dataclass
class _Flight:
    """A build under way, and what changed in the store while it ran."""

    future: Future[Any] = field(default_factory=Future)
    touched: set[str] = field(default_factory=set)
    everything: bool = False
    moved: bool = False


@dataclass
class _Entry:
    value: Any
    tags: frozenset[str]
    build: Build
    built: float
    stale: bool = False
    cost: float = 0.0  # seconds its build took, with the cached parts it was built from


class PageCache:
    """Rendered responses per key, dropped or marked stale as the store changes (see the module
    docstring). ``seconds <= 0`` turns caching off (every value is built on each request)."""

    def __init__(
        self,
        ctx: ChallengeContext,
        seconds: float = 1.0,
        size: int = 50_000,
        aggregate_seconds: float = 5.0,
        on_idle: Callable[[], None] | None = None,
    ) -> None:
        self.ctx, self.seconds, self.size = ctx, seconds, size
        self.on_idle = on_idle  # called when the background queue empties, and after a fill
        self.aggregate_seconds = aggregate_seconds
        self._lock = threading.Lock()
        self._checking = threading.Lock()
        self._pages: OrderedDict[str, _Entry] = OrderedDict()
        # keys by tag, so a change finds what it touches without walking every cached value
        # (212,000 at 10x the event, with the lock held and every reader waiting)
        self._tagged: dict[str, set[str]] = {}
        self._building: dict[str, _Flight] = {}
        self._version: tuple[Any, ...] | None = None
        self._marks: dict[int, int] = {}  # the store's change journal as last read
        self._hidden: list[int] = []
        self._checked = 0.0
        # background work: (priority, order, key, build); refreshes (0) before warming (1)
        self._queue: list[tuple[int, int, str, Build]] = []
        self._queued: set[str] = set()
        self._order = itertools.count()
        self._wake = threading.Condition(self._lock)
        self._worker: threading.Thread | None = None
        self._closed = False
        self._fills: list[_Flight] = []  # bulk builds under way (see fill)
        self._costs = threading.local()  # per thread: costs of the builds under way, nested
        self._fill_left = 0
        self.warmed = 0  # values built ahead (by the background worker or a fill)

    def __len__(self) -> int:
        """How many pages and values the cache holds now."""
        return len(self._pages)

    # -- freshness ---------------------------------------------------------------------------

    def _due(self) -> bool:
        return time.monotonic() - self._checked >= self.seconds

    def check(self) -> None:
        """Compare the store's fingerprint now (one thread at a time; the others go on with
        what is cached) and apply what changed."""
        if not self._checking.acquire(blocking=False):
            return
        try:
            version = store_version(self.ctx)
            hidden = hidden_papers(self.ctx)
            change = Change()
            if self._version is None:
                change = Change(everything=True, moved=True)
                self._marks = paper_marks(self.ctx)
            elif version != self._version:
                change = changed_since(self.ctx, self._version, version, self._marks)
            if hidden != self._hidden:  # a verdict window closed: its paper's verdicts show
                shown = set(self._hidden) ^ set(hidden)
                change.papers |= shown
                change.participants |= _participants_of(self.ctx, shown)
                change.moved = True
            with self._lock:
                self._version, self._hidden = version, hidden
                self._checked = time.monotonic()
                self._apply(change)
        finally:
            self._checking.release()

    def _apply(self, change: Change) -> None:
        """Drop, queue again or mark stale what ``change`` touches (the lock is held)."""
        if not change.moved:
            return
        touched = change.tags()
        for flight in [*self._building.values(), *self._fills]:
            flight.everything |= change.everything
            flight.touched |= touched
            flight.moved = True
        if change.everything:
            self._pages.clear()
            self._tagged.clear()
            return
        for tag in touched:
            for key in list(self._tagged.get(tag, ())):
                entry = self._remove(key)
                self._enqueue(0, key, entry.build)  # render it again ahead of readers
        for key in self._tagged.get(AGGREGATE, ()):
            self._pages[key].stale = True

    def _put(self, key: str, entry: _Entry) -> None:
        """Cache ``entry`` as ``key``'s value, the least recently read beyond ``size`` going
        (the lock is held)."""
        if key in self._pages:
            self._remove(key)
        self._pages[key] = entry
        for tag in entry.tags:
            self._tagged.setdefault(tag, set()).add(key)
        while len(self._pages) > self.size:
            self._remove(next(iter(self._pages)))

    def _remove(self, key: str) -> _Entry:
        """Forget ``key``'s cached value (the lock is held)."""
        entry = self._pages.pop(key)
        for tag in entry.tags:
            keys = self._tagged.get(tag)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._tagged[tag]
        return entry

    # -- reading -----------------------------------------------------------------------------

    def peek(self, key: str) -> Any | None:
        """The cached value when it may be served without a query (the store was checked
        recently enough, or another thread is checking it now), else None. A stale aggregate
        is served, and its rebuild is queued."""
        if self.seconds <= 0 or (self._due() and not self._checking.locked()):
            return None
        with self._lock:
            entry = self._pages.get(key)
            if entry is None:
                return None
            self._pages.move_to_end(key)
            self._refresh_if_stale(key, entry)
            return entry.value

    def built_at(self, key: str) -> float | None:
        """When the cached value of ``key`` was built (``time.monotonic``), None if absent."""
        with self._lock:
            entry = self._pages.get(key)
            return None if entry is None else entry.built

    def _refresh_if_stale(self, key: str, entry: _Entry) -> None:
        """Queue a stale aggregate's rebuild once it is old enough: ``aggregate_seconds``, or
        ``COST_FACTOR`` times what building it costs when that is longer, so that rebuilding
        challenge-wide values while writes keep coming takes at most about a tenth of the
        process whatever the challenge's size (at 10x the event, its lists cost seconds)."""
        wait = max(self.aggregate_seconds, COST_FACTOR * entry.cost)
        if entry.stale and time.monotonic() - entry.built >= wait:
            self._enqueue(0, key, entry.build)

    def value(self, key: str, build: Build, *, fresh: bool = False) -> Any:
        """The value of ``key``, built when absent (``build`` receives a set to add the value's
        tags to). Concurrent requests for the same absent key share one build. A stale
        aggregate is served as it is, unless ``fresh`` (for the parts a value is built from:
        a page rebuilt now must not be built from stale parts)."""
        if self.seconds <= 0:
            return build(set())
        if self._due():
            self.check()
        with self._lock:
            entry = self._pages.get(key)
            if entry is not None and not (fresh and entry.stale):
                self._pages.move_to_end(key)
                self._refresh_if_stale(key, entry)
                if fresh:  # a part of the value being built: its cost counts in that value's
                    self._charge(entry.cost)
                return entry.value
        return self._build(key, build, replace=entry is not None)

    def _charge(self, seconds: float) -> None:
        """Add ``seconds`` to the cost of the build under way in this thread, if any."""
        costs = getattr(self._costs, "stack", None)
        if costs:
            costs[-1] += seconds

    def get(self, key: str, build: Build) -> str:
        """The rendered page of ``key``."""
        page: str = self.value(key, build)
        return page

    def _build(self, key: str, build: Build, *, replace: bool = False) -> Any:
        with self._lock:
            flight = self._building.get(key)
            mine = flight is None
            if flight is None:
                flight = self._building[key] = _Flight()
        if not mine:
            return flight.future.result()
        costs = self._costs.__dict__.setdefault("stack", [])
        costs.append(0.0)
        try:
            tags: set[str] = set()
            started = time.monotonic()
            made = build(tags)
        except BaseException as exc:
            with self._lock:
                del self._building[key]
            flight.future.set_exception(exc)
            raise
        finally:
            parts = costs.pop()
        cost = time.monotonic() - started + parts
        self._charge(parts)  # a value building this one counts its time already, not its parts
        with self._lock:
            del self._building[key]
            if flight.everything or flight.touched & tags:
                # the store changed under this build in a way that touches it: serve it to
                # who asked, keep nothing, and build it again in the background
                self._enqueue(0, key, build)
            elif replace or key not in self._pages:
                stale = flight.moved and AGGREGATE in tags
                self._put(key, _Entry(made, frozenset(tags), build, started, stale, cost))
        flight.future.set_result(made)
        return made

    # -- background building -----------------------------------------------------------------

    def warm(self, items: Iterable[tuple[str, Build]]) -> None:
        """Queue values to be built ahead, in order, after any pending refresh."""
        if self.seconds <= 0:
            return
        with self._lock:
            for key, build in items:
                if key not in self._pages:
                    self._enqueue(1, key, build)

    def fill(self, produce: Iterable[tuple[str, Build, set[str], Any]], total: int = 0) -> int:
        """Store many values built in one pass, in the calling thread: ``produce`` yields each
        key, the build that makes it again alone (kept for refreshes), its tags and its value,
        typically from one bulk read of the store (:class:`~openrepro.board.assemble.Records`)
        instead of a few queries per value. ``total`` (how many it will yield) is counted in
        :meth:`pending` until the fill ends. Returns how many values were stored.

        A value is not stored when the key is cached already, or when a change the cache saw
        since the fill began touches its tags (that key is queued to be built again alone
        instead); a change seen later drops it like any other. Nothing is stored past ``size``
        (values built ahead never evict values that readers asked for)."""
        if self.seconds <= 0:
            return 0
        flight = _Flight()
        with self._lock:
            self._fills.append(flight)
            self._fill_left += total
        started, stored = time.monotonic(), 0
        try:
            self.check()  # changes from here on are seen by this fill (and nothing missed before)
            for key, build, tags, value in produce:
                with self._lock:
                    self._fill_left = max(0, self._fill_left - 1)
                    if self._closed:
                        break
                    if flight.everything or flight.touched & tags:
                        self._enqueue(0, key, build)
                    elif key not in self._pages and len(self._pages) < self.size:
                        stale = flight.moved and AGGREGATE in tags
                        self._put(key, _Entry(value, frozenset(tags), build, started, stale))
                        stored += 1
                if self._due():
                    self.check()
                time.sleep(0)  # let request threads in between pages
        finally:
            with self._lock:
                self._fills.remove(flight)
                self._fill_left = 0 if not self._fills else self._fill_left
                self.warmed += stored
        if self.on_idle is not None:
            self.on_idle()
        return stored

    def pending(self) -> int:
        """Values waiting to be built ahead: the background queue and fills under way."""
        with self._lock:
            return len(self._queue) + self._fill_left

    def _enqueue(self, priority: int, key: str, build: Build) -> None:
        """Queue a build (the lock is held)."""
        if key in self._queued or self._closed:
            return
        self._queued.add(key)
        heapq.heappush(self._queue, (priority, next(self._order), key, build))
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="board-cache", daemon=True)
            self._worker.start()
        self._wake.notify()

    def _work(self) -> None:
        while True:
            with self._lock:
                idle = not self._queue and not self._fills  # a fill calls it when it ends
            if idle and self.on_idle is not None:
                self.on_idle()
            with self._lock:
                while not self._queue and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                priority, _, key, build = heapq.heappop(self._queue)
                self._queued.discard(key)
                entry = self._pages.get(key)
                if entry is not None and not entry.stale:
                    continue  # a reader built it meanwhile
            try:
                if self._due():
                    self.check()
                self._build(key, build, replace=True)
            except Exception:  # a value that fails to build is built (and reported) by its reader
                continue
            if priority:
                self.warmed += 1
                time.sleep(0)  # let request threads in between pages built ahead

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Stop the background worker (and any fill, at its next value)."""
        with self._lock:
            self._closed = True
            self._queue.clear()
            self._queued.clear()
            self._wake.notify_all()


class Aggregates:
    """The challenge-wide figures pages are built from (outcomes, stats, the re-check set, the
    sorted paper lists), cached as ``aggregate`` values so that a page rebuilt after a change
    computes each of them once, not once per page."""

    def __init__(self, ctx: ChallengeContext, cache: PageCache) -> None:
        self.ctx, self.cache = ctx, cache

    def _get(self, key: str, build: Callable[[], T]) -> T:
        def tagged(tags: set[str]) -> T:
            tags.add(AGGREGATE)
            return build()

        found: T = self.cache.value(f"data:{key}", tagged, fresh=True)
        return found

    def outcomes(self) -> list[PaperOutcome]:
        return self._get("outcomes", lambda: paper_outcomes(self.ctx, public=True))

    def stats(self) -> Stats:
        return self._get("stats", lambda: compute_stats(self.ctx, public=True))

    def pending(self) -> set[str]:
        return self._get("pending", lambda: board_data.pending_recheck(self.ctx))

    def recheck(self) -> dict[int, str]:
        """Each queued claim's re-check state, by claim id (shown beside its verdicts)."""
        return self._get("recheck", lambda: board_data.recheck_states(self.ctx))

    def authors(self) -> dict[str, list[str]]:
        return self._get("authors", lambda: board_data.paper_authors(self.ctx))

    def paper_rows(self, status: str, sort: str = "id") -> list[board_data.PaperRow]:
        """Papers matching filter ``status``, in ``sort``'s order (every filter built at once;
        each other order once asked for)."""
        if status not in board_data.PAPER_FILTERS:
            raise NotFoundError(f"unknown filter {status!r}")
        if sort not in board_data.PAPER_SORTS:
            raise NotFoundError(f"unknown order {sort!r}")
        rows = self._get(
            "rows",
            lambda: board_data.rows_by_filter(self.outcomes(), self.pending(), self.authors()),
        )
        if sort == "id":
            return rows[status]
        return self._get(
            f"rows:{status}:{sort}",
            lambda: sorted(rows[status], key=lambda r: board_data.paper_sort_key(r, sort)),
        )

    def verdicts(self) -> tuple[list[board_data.VerdictCell], list[tuple[str, int, str]]]:
        """Every current verdict readers may see, in the verdict list's order (paper, claim,
        participant), with its keyset-pagination keys (one value, so the two always agree)."""

        def build() -> tuple[list[board_data.VerdictCell], list[tuple[str, int, str]]]:
            cells = sorted(board_data.verdict_cells(self.ctx), key=board_data.verdict_key)
            return cells, [board_data.verdict_key(c) for c in cells]

        return self._get("verdicts", build)

    def paper_keys(self, status: str, sort: str = "id") -> list[tuple[str | int, ...]]:
        """The keyset-pagination keys of :meth:`paper_rows` (see ``paper_sort_key``)."""
        return self._get(
            f"keys:{status}:{sort}",
            lambda: [board_data.paper_sort_key(r, sort) for r in self.paper_rows(status, sort)],
        )

    def credit_index(self) -> dict[tuple[str], int]:
        """Each leaderboard row's position, by handle (the leaderboard's cursor key)."""
        return self._get(
            "credit-index", lambda: {(c.handle,): i for i, c in enumerate(self.stats().credit)}
        )
