"""Judge workers: take items from the judge queue (:mod:`openrepro.store.judge_queue`) and judge
them with the judge service, so that the board judges every submission and every change of a
check by itself (``openrepro worker``; ``openrepro serve`` starts one).

A worker takes one logbook's queued items at a time under a lease, renews the lease while it
judges (a thread, every third of ``queue_lease_s``), judges the logbook with
:func:`~openrepro.judge.service.judge_logbook` (the verdicts of a logbook are written in one
transaction, claims already judged under the same inputs are skipped), then marks the items
done; a failure puts them back with a backoff, and after ``queue_max_attempts`` marks them
failed with the reason. A worker killed mid-claim writes nothing: its verdicts were not
committed, and its items return to the queue once the lease has passed, for the next worker.

On start a worker records its judge config as the queue's judge version; when that differs from
the recorded one, the newest revision of every logbook is queued again at the lowest priority
(a background re-judge after a judge-version change).
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Callable

from pydantic import BaseModel

from openrepro.challenge import ChallengeContext
from openrepro.errors import FrozenError
from openrepro.identity.service import ensure_writable
from openrepro.judge.engine import judge_config
from openrepro.judge.service import judge_logbook, panel_model
from openrepro.llm import LLMClient, open_client
from openrepro.logbooks.revisions import latest_logbook_ids
from openrepro.store.judge_queue import (
    Claimed,
    claim_next,
    enqueue,
    extend_lease,
    fail,
    finish,
    register_judge_version,
)

__all__ = ["WorkerReport", "open_judges", "register_version", "run_worker", "work_once"]


class WorkerReport(BaseModel):
    worker: str
    logbooks: int = 0
    items: int = 0
    failures: int = 0
    seconds: float = 0.0


def new_worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


def open_judges(ctx: ChallengeContext, *, no_llm: bool = False) -> list[LLMClient]:
    """The judge model as ``openrepro judge`` opens it (on first use), or none with
    ``no_llm`` (claims that need a model are then inconclusive)."""
    if no_llm:
        return []
    return [open_client(ctx.settings, ctx.store, defer=True)]


def register_version(ctx: ChallengeContext, config: str) -> int:
    """Record ``config`` as the queue's judge version; on a change, queue the newest revision
    of every logbook for a background re-judge. Returns the number of items offered."""
    with ctx.store.session() as session:
        if not register_judge_version(session, config):
            return 0
        books = latest_logbook_ids(session, ctx.challenge_id)
        return enqueue(session, books, reason="judge-version")


def _heartbeat(ctx: ChallengeContext, claimed: Claimed, worker: str, stop: threading.Event) -> None:
    lease = ctx.settings.queue_lease_s
    while not stop.wait(lease / 3):
        try:
            with ctx.store.session() as session:
                extend_lease(session, claimed.item_ids, worker, lease)
        except Exception:  # a missed renewal only shortens the lease; the next one may pass
            continue


def work_once(
    ctx: ChallengeContext, worker: str, clients: list[LLMClient], *, config: str, model: str
) -> tuple[Claimed | None, str]:
    """Claim and judge one logbook's queued items: (what was claimed, or None when nothing
    waits; the error, "" when judged)."""
    with ctx.store.session() as session:
        claimed = claim_next(session, worker, ctx.settings.queue_lease_s)
    if claimed is None:
        return None, ""
    stop = threading.Event()
    beat = threading.Thread(target=_heartbeat, args=(ctx, claimed, worker, stop), daemon=True)
    beat.start()
    error = ""
    try:
        judge_logbook(ctx, claimed.logbook_id, clients, config=config, model=model)
    except Exception as exc:  # recorded on the items, retried with a backoff
        error = f"{type(exc).__name__}: {exc}"
    finally:
        stop.set()
        beat.join()
    with ctx.store.session() as session:
        if error:
            fail(session, claimed.item_ids, worker, error,
                 max_attempts=ctx.settings.queue_max_attempts,
                 backoff_s=ctx.settings.queue_backoff_s)  # fmt: skip
        else:
            finish(session, claimed.item_ids, worker)
    return claimed, error


def run_worker(
    ctx: ChallengeContext,
    clients: list[LLMClient],
    *,
    worker: str | None = None,
    stop: threading.Event | None = None,
    until_empty: bool = False,
    progress: Callable[[Claimed, str], None] | None = None,
) -> WorkerReport:
    """Judge queued items until ``stop`` is set (or, with ``until_empty``, until nothing is
    queued); an idle worker looks again every ``queue_poll_s``."""
    worker = worker or new_worker_id()
    stop = stop or threading.Event()
    model = panel_model(clients)
    config = judge_config(model)
    register_version(ctx, config)
    report = WorkerReport(worker=worker)
    started = time.perf_counter()
    while not stop.is_set():
        try:
            ensure_writable(ctx)
        except FrozenError:
            if until_empty:
                break
            stop.wait(ctx.settings.queue_poll_s * 10)
            continue
        claimed, error = work_once(ctx, worker, clients, config=config, model=model)
        if claimed is None:
            if until_empty:
                break
            stop.wait(ctx.settings.queue_poll_s)
            continue
        report.logbooks += 1
        report.items += len(claimed.item_ids)
        report.failures += bool(error)
        if progress is not None:
            progress(claimed, error)
    report.seconds = round(time.perf_counter() - started, 3)
    return report
