"""Claim extraction and judging fanned out over a Ray cluster (``--engine ray``).

The driver (the ``openrepro`` command) lists the work items (papers, logbooks) exactly as the
local path does, cuts them into small batches and submits one Ray task per batch, with a bounded
number in flight. A task receives plain data only: the challenge's :class:`Settings` (hence the
store URL), its challenge id, the judges' settings and ids; it opens the store and the LLM
client(s) itself (once per worker process, then reused) and calls the same per-item function as
the local path: :func:`openrepro.judge.service.judge_logbook` (one transaction per logbook,
claims already judged under the judge config skipped) or
:func:`openrepro.claims.extract.extract_one` (one transaction per paper, done papers skipped).
So the results equal the single-process path's, a task that Ray retries after a worker crash
cannot duplicate anything, and an interrupted run resumes where it stopped.

Ray is optional (``pip install 'openrepro[ray]'``) and imported only here, on use.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TypeVar

from openrepro.challenge import ChallengeContext
from openrepro.claims.extract import extract_one, pending_papers
from openrepro.claims.records import ExtractionReport, PaperExtraction
from openrepro.config import Settings
from openrepro.errors import ConfigError, EngineError, OpenReproError
from openrepro.identity.service import ensure_writable
from openrepro.judge.judges import Judges
from openrepro.judge.service import JudgeReport, VerdictRow, judge_logbook, judge_targets
from openrepro.llm import LLMClient, Usage, open_client, pin_model
from openrepro.provenance.replay import ReplayReport, replay_logbook, replay_targets
from openrepro.store import Store

__all__ = [
    "RayOptions",
    "extract_claims_ray",
    "judge_logbooks_ray",
    "ray_session",
    "replay_logbooks_ray",
    "require_ray",
]

INSTALL_HINT = "install it with `pip install 'openrepro[ray]'` (or `pip install 'ray>=2.9'`)"
#: object store of a local instance: the tasks exchange ids and small records only
LOCAL_OBJECT_STORE_BYTES = 128 * 1024 * 1024

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class RayOptions:
    """Where and how to run: ``address`` of a running cluster (``auto``, ``HOST:6379`` or
    ``ray://HOST:10001``), else a local instance on 127.0.0.1 with ``num_cpus`` CPUs (default:
    all). ``batch`` work items go in one task; at most ``inflight`` tasks are pending at once
    (default: twice the cluster's CPUs)."""

    address: str | None = None
    num_cpus: int | None = None
    batch: int = 4
    inflight: int | None = None


def require_ray() -> ModuleType:
    """The ``ray`` module, or a :class:`ConfigError` saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(
            f"--engine ray needs Ray, which is not installed: {INSTALL_HINT}"
        ) from exc
    return ray


@contextmanager
def ray_session(options: RayOptions) -> Iterator[ModuleType]:
    """Ray, connected: an instance already initialised in this process is used as it is;
    otherwise this connects to ``options.address`` or starts a local instance (127.0.0.1 only,
    no dashboard), and shuts it down at the end."""
    ray = require_ray()
    if ray.is_initialized():
        yield ray
        return
    try:
        if options.address:
            ray.init(address=options.address, log_to_driver=False)
        else:
            ray.init(
                num_cpus=options.num_cpus or os.cpu_count() or 1,
                include_dashboard=False,
                _node_ip_address="127.0.0.1",
                object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                log_to_driver=False,
            )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = options.address or "a local instance"
        raise EngineError(f"cannot start Ray ({where}): {exc}") from exc
    try:
        yield ray
    finally:
        ray.shutdown()


# -- the worker side ------------------------------------------------------------------------

_CONTEXTS: dict[tuple[str, int], ChallengeContext] = {}
_CLIENTS: dict[tuple[str, ...], list[LLMClient]] = {}
_JUDGES: dict[tuple[str, ...], Judges] = {}


def _settings_key(settings: Settings) -> str:
    return f"{settings.directory}|{settings.model_dump_json()}"


def _context(settings: Settings, challenge_id: int) -> ChallengeContext:
    """The challenge in this worker process: its own store connection, opened once."""
    key = (_settings_key(settings), challenge_id)
    ctx = _CONTEXTS.get(key)
    if ctx is None:
        store = Store(settings.resolved_database_url())
        ctx = _CONTEXTS[key] = ChallengeContext(settings, store, challenge_id)
    return ctx


def _clients(ctx: ChallengeContext, settings: Sequence[Settings]) -> list[LLMClient]:
    """LLM clients for ``settings`` in this worker process, opened once (an embedded model
    loads once per worker), caching replies in the challenge's store."""
    key = (_settings_key(ctx.settings), *(_settings_key(s) for s in settings))
    clients = _CLIENTS.get(key)
    if clients is None:
        clients = _CLIENTS[key] = [open_client(s, ctx.store) for s in settings]
    return clients


def _judges(ctx: ChallengeContext, settings: Sequence[Settings]) -> Judges:
    """The judges of ``settings`` in this worker process, made once (each opened when a claim
    first needs it, then reused), caching replies in the challenge's store."""
    key = (_settings_key(ctx.settings), *(_settings_key(s) for s in settings))
    judges = _JUDGES.get(key)
    if judges is None:
        judges = _JUDGES[key] = Judges(tuple(settings), ctx.store)
    return judges


@dataclass(frozen=True)
class JudgeTask:
    settings: Settings
    challenge_id: int
    judges: tuple[Settings, ...]  # each judge's settings, model pinned; empty: no model
    config: str


def judge_batch(task: JudgeTask, logbook_ids: list[int]) -> list[tuple[list[VerdictRow], Usage]]:
    """Judge ``logbook_ids`` one after the other (the body of one Ray task)."""
    ctx = _context(task.settings, task.challenge_id)
    judges = _judges(ctx, task.judges)
    return [judge_logbook(ctx, logbook_id, judges, config=task.config)
            for logbook_id in logbook_ids]  # fmt: skip


@dataclass(frozen=True)
class ExtractTask:
    settings: Settings
    challenge_id: int


def extract_batch(task: ExtractTask, paper_ids: list[int]) -> list[PaperExtraction]:
    """Extract ``paper_ids`` one after the other (the body of one Ray task)."""
    ctx = _context(task.settings, task.challenge_id)
    (client,) = _clients(ctx, [task.settings])
    return [extract_one(ctx, client, paper_id) for paper_id in paper_ids]


@dataclass(frozen=True)
class ReplayTask:
    settings: Settings
    challenge_id: int
    budget_per_logbook: float
    memory_mb: int | None


def replay_batch(task: ReplayTask, logbook_ids: list[int]) -> list[ReplayReport]:
    """Replay ``logbook_ids`` one after the other in the sandbox (the body of one Ray task)."""
    ctx = _context(task.settings, task.challenge_id)
    return [
        replay_logbook(ctx, logbook_id, budget_seconds=task.budget_per_logbook,
                       memory_mb=task.memory_mb)
        for logbook_id in logbook_ids
    ]  # fmt: skip


# -- the driver side ------------------------------------------------------------------------


@dataclass
class _Fanout:
    """Submit batches as Ray tasks, at most ``inflight`` pending, and collect the results."""

    ray: ModuleType
    remote: Any
    inflight: int
    pending: dict[Any, int] = field(default_factory=dict)

    def run(
        self, first: Any, batches: list[list[int]], done: Callable[[list[Any]], None]
    ) -> list[list[Any]]:
        results: list[list[Any]] = [[] for _ in batches]
        shared = self.ray.put(first)
        queue = list(enumerate(batches))
        queue.reverse()
        try:
            while queue or self.pending:
                while queue and len(self.pending) < self.inflight:
                    index, batch = queue.pop()
                    self.pending[self.remote.remote(shared, batch)] = index
                ready, _ = self.ray.wait(list(self.pending), num_returns=1)
                for ref in ready:
                    index = self.pending.pop(ref)
                    results[index] = self._get(ref)
                    done(results[index])
        finally:
            for ref in self.pending:  # an error stopped the run: cancel the rest
                self.ray.cancel(ref)
        return results

    def _get(self, ref: Any) -> list[Any]:
        from ray.exceptions import RayError, RayTaskError

        try:
            value: list[Any] = self.ray.get(ref)
        except RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, OpenReproError):
                raise cause from None
            raise EngineError(f"a Ray task failed: {cause or exc}") from exc
        except RayError as exc:
            raise EngineError(f"a Ray task was lost: {exc}") from exc
        return value


def _batches(ids: list[int], size: int) -> list[list[int]]:
    size = max(1, size)
    return [ids[i : i + size] for i in range(0, len(ids), size)]


def _inflight(ray: ModuleType, options: RayOptions) -> int:
    if options.inflight:
        return options.inflight
    cpus = int(ray.cluster_resources().get("CPU", 1))
    return max(2, 2 * cpus)


def judge_logbooks_ray(
    ctx: ChallengeContext,
    judges: Judges,
    *,
    logbook_ids: list[int] | None = None,
    paper: str | None = None,
    progress: Callable[[list[VerdictRow]], None] | None = None,
    usage: Usage | None = None,
    options: RayOptions | None = None,
    on_targets: Callable[[int], None] | None = None,
) -> JudgeReport:
    """:func:`openrepro.judge.service.judge_logbooks` on Ray: the same targets, per-logbook
    function and report (verdicts in target order). ``judges``: the judge model(s), sent to
    the workers as settings with each model name pinned (none: deterministic path only);
    ``usage``, when given, is kept up to date as
    tasks finish and ``on_targets`` is told the number of logbooks (for a progress display)."""
    options = options or RayOptions()
    ensure_writable(ctx)
    started = time.perf_counter()
    pinned = judges.pinned()
    report = JudgeReport(judge_config=pinned.config)
    targets = judge_targets(ctx, logbook_ids, paper)
    if on_targets is not None:
        on_targets(len(targets))
    task = JudgeTask(ctx.settings, ctx.challenge_id, pinned.settings, report.judge_config)

    def done(items: list[tuple[list[VerdictRow], Usage]]) -> None:
        for rows, spent in items:
            report.usage.add(spent)
            if usage is not None:
                usage.add(spent)
            if progress is not None:
                progress(rows)

    with ray_session(options) as ray:
        remote = ray.remote(num_cpus=1, max_retries=2)(judge_batch)
        fanout = _Fanout(ray, remote, _inflight(ray, options))
        results = fanout.run(task, _batches(targets, options.batch), done)
    for batch in results:
        for rows, _ in batch:
            report.verdicts += rows
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def replay_logbooks_ray(
    ctx: ChallengeContext,
    *,
    budget_per_logbook: float,
    budget: float | None = None,
    memory_mb: int | None = None,
    progress: Callable[[ReplayReport], None] | None = None,
    options: RayOptions | None = None,
) -> list[ReplayReport]:
    """:func:`openrepro.provenance.replay.replay_all` on Ray: the same logbooks (newest
    revision each), the same per-logbook function (results stored per logbook, in its
    sandbox), reports in logbook order. ``budget`` (seconds in all) caps each logbook's share
    at ``budget / logbooks``; runs over a logbook's share are queued."""
    options = options or RayOptions()
    ensure_writable(ctx)
    targets = replay_targets(ctx)
    per = budget_per_logbook
    if budget is not None and targets:
        per = min(per, budget / len(targets))
    task = ReplayTask(ctx.settings, ctx.challenge_id, per, memory_mb)

    def done(items: list[ReplayReport]) -> None:
        for report in items:
            if progress is not None:
                progress(report)

    with ray_session(options) as ray:
        remote = ray.remote(num_cpus=1, max_retries=0)(replay_batch)
        fanout = _Fanout(ray, remote, _inflight(ray, options))
        results = fanout.run(task, _batches(targets, 1), done)
    return [report for batch in results for report in batch]


def extract_claims_ray(
    ctx: ChallengeContext,
    venue_ids: list[str] | None = None,
    *,
    redo: bool = False,
    progress: Callable[[PaperExtraction], None] | None = None,
    options: RayOptions | None = None,
) -> ExtractionReport:
    """:func:`openrepro.claims.extract.extract_claims` on Ray: the same papers (done ones
    skipped unless ``redo``), per-paper function and report (papers in order)."""
    options = options or RayOptions()
    ensure_writable(ctx)
    started = time.perf_counter()
    report = ExtractionReport()
    ids = pending_papers(ctx, venue_ids, redo)
    task = ExtractTask(pin_model(ctx.settings), ctx.challenge_id)

    def done(items: list[PaperExtraction]) -> None:
        for outcome in items:
            report.usage.add(outcome.usage)
            if progress is not None:
                progress(outcome)

    with ray_session(options) as ray:
        remote = ray.remote(num_cpus=1, max_retries=2)(extract_batch)
        fanout = _Fanout(ray, remote, _inflight(ray, options))
        results = fanout.run(task, _batches(ids, options.batch), done)
    report.papers = [outcome for batch in results for outcome in batch]
    report.seconds = round(time.perf_counter() - started, 3)
    return report
