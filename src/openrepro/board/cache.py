"""Rendered pages and API answers of the board, kept until what they show changes.

Every cached value carries *tags* naming the records it shows, in the words of the store's
change journal (:mod:`openrepro.store.journal`; which page shows which records is
:func:`openrepro.board.catalogue.record_tags`): ``paper:<id>``, ``participant:<id>``,
``name:<handle>``, and ``aggregate`` (a figure over the whole challenge: the home page, the
paper lists, the leaderboard, credit). At most once per ``seconds`` one thread reads the
journal's rows written since the last it saw (one query on its primary key), and:

- values tagged with a marked record are dropped and queued to be rendered again in the
  background (so a verdict on paper A refreshes A's pages and leaves paper B's);
- values tagged ``aggregate`` are marked stale when anything at all was marked: they are still
  served, and rebuilt in the background when asked for, at most once per
  ``aggregate_seconds`` each;
- a change the journal could not narrow (``everything``: the challenge frozen, a statement
  over a whole table) drops everything.

A paper whose verdict window closes (with time, not with a write) is treated as marked.

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

from openrepro.board import data as board_data
from openrepro.challenge import ChallengeContext
from openrepro.errors import NotFoundError
from openrepro.outcomes import PaperOutcome, Stats, compute_stats, hidden_papers, paper_outcomes
from openrepro.store.journal import (
    AGGREGATE,
    EVERYTHING,
    name_tag,
    paper_tag,
    participant_tag,
    read_changes,
)

T = TypeVar("T")

__all__ = [
    "AGGREGATE",
    "EVERYTHING",
    "Aggregates",
    "PageCache",
    "name_tag",
    "paper_tag",
    "participant_tag",
]

#: A stale aggregate is rebuilt at most once per this many times what building it costs.
COST_FACTOR = 10.0

Build = Callable[[set[str]], Any]


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
        self._head: int | None = None  # the newest journal row read (None: not read yet)
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
        self._taken = 0  # builds the background worker took off the queue and has not finished
        self.warmed = 0  # values built ahead (by the background worker or a fill)

    def __len__(self) -> int:
        """How many pages and values the cache holds now."""
        return len(self._pages)

    # -- freshness ---------------------------------------------------------------------------

    def _due(self) -> bool:
        return time.monotonic() - self._checked >= self.seconds

    def check(self) -> None:
        """Read the store's change journal now (one thread at a time; the others go on with
        what is cached) and apply what it marked."""
        if not self._checking.acquire(blocking=False):
            return
        try:
            with self.ctx.store.session() as session:
                change = read_changes(session, self._head)
            hidden = hidden_papers(self.ctx)
            tags = set(change.tags)
            if hidden != self._hidden:  # a verdict window closed: its paper's verdicts show
                tags |= {paper_tag(p) for p in set(self._hidden) ^ set(hidden)}
            with self._lock:
                self._head, self._hidden = change.head, hidden
                self._checked = time.monotonic()
                self._apply(tags)
        finally:
            self._checking.release()

    def _apply(self, tags: set[str]) -> None:
        """Drop, queue again or mark stale what the journal's ``tags`` touch (the lock is
        held)."""
        if not tags:
            return
        everything = EVERYTHING in tags
        touched = tags - {AGGREGATE, EVERYTHING}
        for flight in [*self._building.values(), *self._fills]:
            flight.everything |= everything
            flight.touched |= touched
            flight.moved = True
        if everything:
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
        """Values waiting to be built ahead: the background queue, the build its worker took
        off it, and fills under way."""
        with self._lock:
            return len(self._queue) + self._taken + self._fill_left

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
                self._taken += 1
            try:
                if self._due():
                    self.check()
                self._build(key, build, replace=True)
            except Exception:  # a value that fails to build is built (and reported) by its reader
                continue
            finally:
                with self._lock:
                    self._taken -= 1
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
