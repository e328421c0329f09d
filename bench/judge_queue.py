"""Benchmark: the judge queue and its workers (openrepro.store.judge_queue, openrepro worker).

Generates a store shaped like a share of ICML 2026's challenge (2,226 attempted papers, 6,816
logbooks, ~5.3 claims per logbook; every claim with a check, every logbook logging its claims'
metrics in a run matched by a replay, so the judge's rules decide without a model), then prints:

* throughput: verdicts per second with 1, 2 and 4 `openrepro worker` processes judging the whole
  queue (from the first claim to the last item done; process start-up not counted);
* latency from submission to verdict (median, p95) with 50 concurrent submitters, each storing a
  new logbook revision and queueing it (the store side of a submission, as `intake.submit`
  does after unpacking), while 2 workers run;
* the backlog time of a full re-judge after a judge-version change (every verdict to give
  again, the items queued at background priority by the first worker that starts).

    source scripts/postgres.sh     # optional: on PostgreSQL (OPENREPRO_TEST_POSTGRES_URL)
    .venv/bin/python bench/judge_queue.py [--share 0.05] [--workers 1,2,4] [--submitters 50]
        [--sqlite]

A share of 1.0 is the event's size; the default runs in minutes on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, delete, func, insert, select, text, update

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.claims.checks import Check, Constant, Quantity, Relation
from openrepro.judge.engine import judge_config
from openrepro.logbooks.records import LogbookRecord, Metric, Run
from openrepro.store import Claim, Logbook, Paper, Participant, Verdict
from openrepro.store.judge_queue import enqueue
from openrepro.store.tables_provenance import Replay
from openrepro.store.tables_queue import JudgeQueueItem, JudgeQueueState, JudgeQueueTurn

EVENT = {"attempted": 2226, "logbooks": 6816, "claims": 35908, "days": 19}
VALUE = 80.0


def _check(claim_id: str) -> dict[str, Any]:
    check = Check(relation=Relation.equal, subject="accuracy",
                  quantities=[Quantity(name="accuracy")],
                  constant=Constant(value=VALUE, text=f"{VALUE}"))  # fmt: skip
    return check.for_claim(claim_id).model_dump(mode="json")


def _manifest(venue: str, claims: int, rng: random.Random) -> dict[str, Any]:
    metrics = [Metric(run="seed0", key=f"claims/{venue}/C{k}/accuracy", step=0,
                      value=VALUE if rng.random() < 0.7 else VALUE / 2, source="bundle")
               for k in range(1, claims + 1)]  # fmt: skip
    return LogbookRecord(
        format="bundle", format_version="1", paper_id=venue, title=f"Attempt on {venue}",
        claims=[f"{venue}/C{k}" for k in range(1, claims + 1)],
        runs=[Run(id="seed0", command=["python", "train.py"], exit_code=0, duration_s=3.0)],
        metrics=metrics,
    ).model_dump(mode="json")  # fmt: skip


def generate(ctx: ChallengeContext, share: float, seed: int = 7) -> dict[str, int]:
    rng = random.Random(seed)
    papers = max(2, round(EVENT["attempted"] * share))
    books = max(papers, round(EVENT["logbooks"] * share))
    people = max(2, books // 5)
    cid = ctx.challenge_id
    per_paper = {p: rng.randint(3, 8) for p in range(1, papers + 1)}
    quote = {"text": f"{VALUE}", "start": 0, "end": len(f"{VALUE}"), "field": "abstract"}
    rows: list[dict[str, Any]] = []
    pairs: set[tuple[int, int]] = set()
    while len(rows) < books:
        paper = len(rows) + 1 if len(rows) < papers else rng.randint(1, papers)
        person = rng.randint(1, people)
        if (paper, person) in pairs:
            continue
        pairs.add((paper, person))
        venue = f"icml26-{paper:05d}"
        rows.append({"id": len(rows) + 1, "paper_id": paper, "participant_id": person,
                     "revision": f"r{len(rows):06d}", "format": "bundle",
                     "title": f"Attempt {len(rows)}",
                     "manifest": _manifest(venue, per_paper[paper], rng)})  # fmt: skip
    with ctx.store.engine.begin() as conn:
        conn.execute(insert(Participant), [
            {"id": i, "challenge_id": cid, "handle": f"user{i:05d}", "name": ""}
            for i in range(1, people + 1)
        ])  # fmt: skip
        conn.execute(insert(Paper), [
            {"id": p, "challenge_id": cid, "venue_id": f"icml26-{p:05d}", "title": f"Paper {p}",
             "authors": [], "abstract": f"{VALUE} accuracy.", "source": "bench"}
            for p in range(1, papers + 1)
        ])  # fmt: skip
        conn.execute(insert(Claim), [
            {"paper_id": p, "key": f"C{k}", "text": f"It reaches {VALUE} accuracy.",
             "kind": "result", "quotes": [quote], "check": _check(f"icml26-{p:05d}/C{k}")}
            for p, n in per_paper.items() for k in range(1, n + 1)
        ])  # fmt: skip
        for start in range(0, len(rows), 2000):
            conn.execute(insert(Logbook), rows[start : start + 2000])
        conn.execute(insert(Replay), [
            {"logbook_id": r["id"], "run_id": "seed0", "kind": "replay", "status": "matched",
             "level": "replayed", "details": {}} for r in rows
        ])  # fmt: skip
        if conn.dialect.name == "postgresql":
            for table in ("participants", "papers", "logbooks"):
                conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                  f"(SELECT MAX(id) FROM {table}))"))  # fmt: skip
    claims = sum(per_paper[r["paper_id"]] for r in rows)
    return {"papers": papers, "logbooks": books, "claims": claims, "participants": people}


def _reset(ctx: ChallengeContext, version: str) -> None:
    """No verdict, an empty queue, and ``version`` as the workers' last judge version."""
    with ctx.store.session() as session:
        session.execute(delete(Verdict))
        session.execute(delete(JudgeQueueItem))
        session.execute(delete(JudgeQueueTurn))
        session.execute(delete(JudgeQueueState))
        session.add(JudgeQueueState(name="judge_version", value=version))


def _workers(folder: Path, count: int, *, until_empty: bool) -> list[subprocess.Popen[bytes]]:
    command = [sys.executable, "-m", "openrepro", "--dir", str(folder), "worker", "--no-llm",
               "--quiet", *(["--until-empty"] if until_empty else [])]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENREPRO_")}
    return [subprocess.Popen(command, env=env) for _ in range(count)]


def _span(ctx: ChallengeContext) -> tuple[float, int]:
    """Seconds from the first claim to the last item done, and the verdicts stored."""
    with ctx.store.session() as session:
        first, last = session.execute(
            select(func.min(JudgeQueueItem.claimed_at), func.max(JudgeQueueItem.finished_at))
        ).one()
        verdicts = session.scalar(select(func.count(Verdict.id))) or 0
    return (last - first).total_seconds(), verdicts


def _pending(ctx: ChallengeContext) -> int:
    with ctx.store.session() as session:
        return session.scalar(
            select(func.count(JudgeQueueItem.id)).where(
                JudgeQueueItem.status.in_(("queued", "judging"))
            )
        ) or 0  # fmt: skip


def throughput(ctx: ChallengeContext, count: int) -> tuple[float, int, float]:
    config = judge_config("")
    _reset(ctx, config)
    with ctx.store.session() as session:
        books = list(session.scalars(select(Logbook.id)))
        enqueue(session, books, reason="submission")
    for process in _workers(ctx.settings.directory, count, until_empty=True):
        process.wait()
    assert _pending(ctx) == 0
    seconds, verdicts = _span(ctx)
    return verdicts / seconds, verdicts, seconds


def backlog(ctx: ChallengeContext, count: int) -> tuple[float, int, float]:
    """A judge-version change: the first worker to start queues everything again."""
    _reset(ctx, "an older judge")
    for process in _workers(ctx.settings.directory, count, until_empty=True):
        process.wait()
    assert _pending(ctx) == 0
    seconds, verdicts = _span(ctx)
    return verdicts / seconds, verdicts, seconds


def latency(ctx: ChallengeContext, submitters: int, each: int, workers: int) -> list[float]:
    """Submit-to-verdict seconds of ``submitters`` x ``each`` new revisions (concurrently)."""
    config = judge_config("")
    _reset(ctx, config)
    with ctx.store.session() as session:  # judged already: only the new revisions wait
        session.execute(update(JudgeQueueState).values(value=config))
    with ctx.store.session() as session:
        latest = list(session.execute(select(Logbook.paper_id, Logbook.participant_id,
                                             Logbook.manifest).order_by(Logbook.id.desc())
                                      .limit(submitters * each)))  # fmt: skip
    running = _workers(ctx.settings.directory, workers, until_empty=False)
    with ctx.store.session() as session:  # a probe: the workers are up once it is judged
        probe = session.scalar(select(func.min(Logbook.id)))
        enqueue(session, [probe or 0], reason="submission")
    while _pending(ctx):
        time.sleep(0.2)
    submitted: dict[int, float] = {}
    lock = threading.Lock()

    def submitter(n: int) -> None:
        rng = random.Random(n)
        for i in range(each):  # each a logbook of its own (a revision replaces queued items)
            paper, person, manifest = latest[(n * each + i) % len(latest)]
            time.sleep(rng.uniform(0.0, 2.0))
            with ctx.store.session() as session:
                book = Logbook(paper_id=paper, participant_id=person, revision=f"s{n}-{i}",
                               format="bundle", title="again", manifest=manifest)  # fmt: skip
                session.add(book)
                session.flush()
                session.add(Replay(logbook_id=book.id, run_id="seed0", kind="replay",
                                   status="matched", level="replayed", details={}))  # fmt: skip
                enqueue(session, [book.id], reason="submission")
                at = time.time()
            with lock:
                submitted[book.id] = at

    threads = [threading.Thread(target=submitter, args=(n,)) for n in range(submitters)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        with ctx.store.session() as session:
            left = session.scalar(select(func.count(JudgeQueueItem.id)).where(
                JudgeQueueItem.logbook_id.in_(list(submitted)),
                JudgeQueueItem.status.in_(("queued", "judging"))))  # fmt: skip
        if not left:
            break
        time.sleep(0.5)
    for process in running:
        process.terminate()
    for process in running:
        process.wait()
    with ctx.store.session() as session:
        done = dict(session.execute(
            select(JudgeQueueItem.logbook_id, func.max(JudgeQueueItem.finished_at))
            .where(JudgeQueueItem.logbook_id.in_(list(submitted)),
                   JudgeQueueItem.status == "done")
            .group_by(JudgeQueueItem.logbook_id)
        ).all())  # fmt: skip
    out = []
    for book, at in submitted.items():
        finished = done.get(book)
        if finished is not None:
            finished = finished if finished.tzinfo else finished.replace(tzinfo=UTC)
            out.append(finished.timestamp() - at)
    return out


def _database(label: str, root: Path) -> tuple[str | None, Any]:
    if label == "sqlite":
        return None, lambda: None
    server = os.environ["OPENREPRO_TEST_POSTGRES_URL"]
    name = f"bench_queue_{os.getpid()}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return server.rsplit("/", 1)[0] + "/" + name, drop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--share", type=float, default=0.05, help="Share of the event's size.")
    parser.add_argument("--workers", default="1,2,4", help="Worker counts for throughput.")
    parser.add_argument("--submitters", type=int, default=50)
    parser.add_argument("--each", type=int, default=2, help="Revisions per submitter.")
    parser.add_argument("--sqlite", action="store_true", help="SQLite even with PostgreSQL up.")
    args = parser.parse_args()
    label = "postgresql" if os.environ.get("OPENREPRO_TEST_POSTGRES_URL") and not args.sqlite \
        else "sqlite"  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="openrepro-bench-queue-") as tmp:
        url, drop = _database(label, Path(tmp))
        ctx = init_challenge(Path(tmp) / "ch", "bench", database_url=url)
        try:
            started = time.perf_counter()
            shape = generate(ctx, args.share)
            print(f"{label}: {shape} (generated in {time.perf_counter() - started:.1f}s); "
                  f"{os.cpu_count()} CPUs")  # fmt: skip
            for count in (int(n) for n in args.workers.split(",")):
                rate, verdicts, seconds = throughput(ctx, count)
                print(f"throughput, {count} worker(s): {rate:.1f} verdicts/s "
                      f"({verdicts} verdicts in {seconds:.1f}s)")  # fmt: skip
            waits = latency(ctx, args.submitters, args.each, workers=2)
            waits.sort()
            p95 = waits[min(len(waits) - 1, round(0.95 * (len(waits) - 1)))]
            print(f"latency, {args.submitters} submitters x {args.each}, 2 workers: median "
                  f"{statistics.median(waits):.2f}s, p95 {p95:.2f}s, max {waits[-1]:.2f}s "
                  f"({len(waits)} judged)")  # fmt: skip
            rate, verdicts, seconds = backlog(ctx, 2)
            print(f"full re-judge after a judge-version change, 2 workers: {seconds:.1f}s for "
                  f"{verdicts} verdicts ({rate:.1f}/s); at that rate the event's "
                  f"{EVENT['claims']:,} claims take {EVENT['claims'] / rate / 60:.1f} min "
                  f"(the event judged them over {EVENT['days']} days)")  # fmt: skip
        finally:
            ctx.close()
            drop()


if __name__ == "__main__":
    main()
