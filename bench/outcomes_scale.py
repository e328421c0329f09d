"""Benchmark: outcomes, stats, the static board, the freeze and the live board at event scale.

Generates a store shaped like ICML 2026's challenge (6,341 papers, 2,226 attempted, 6,816
logbooks, 35,908 claim verdicts, 1,221 participants; ~5 claims per attempted paper, teams,
revisions, organizer edits, every outcome row represented), then prints:

* `stats` wall time, and the same aggregation written directly in DuckDB over the same rows;
* stats at 10x scale;
* `site build` of the whole board (first build, then an unchanged rebuild);
* freeze time and size (when the freeze package is present);
* board latency under 50 concurrent clients (p50/p95/p99, req/s) against `openrepro serve`
  running in its own process.

    .venv/bin/python bench/outcomes_scale.py [--scale 1] [--no-10x] [--no-load] [--keep DIR]

Goals: stats <= 1 s and <= 2x DuckDB; site build <= 30 s; p95 <= 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from openrepro.challenge import ChallengeContext, init_challenge
from openrepro.store import Claim, Logbook, Paper, Participant, Verdict, VerdictEdit

SHAPE = {"papers": 6341, "attempted": 2226, "logbooks": 6816, "verdicts": 35908,
         "participants": 1221}  # fmt: skip
VALUES = ["verified", "falsified", "toy", "inconclusive"]
WEIGHTS = [0.45, 0.12, 0.13, 0.30]


def generate(ctx: ChallengeContext, scale: int, seed: int = 7) -> dict[str, int]:
    rng = random.Random(seed)
    n_papers = SHAPE["papers"] * scale
    n_attempted = SHAPE["attempted"] * scale
    n_logbooks = SHAPE["logbooks"] * scale
    n_people = SHAPE["participants"] * scale
    target_verdicts = SHAPE["verdicts"] * scale
    start = datetime(2026, 7, 1, tzinfo=UTC)
    cid = ctx.challenge_id
    engine = ctx.store.engine
    with engine.begin() as conn:
        conn.execute(insert(Participant), [
            {"id": i + 1, "challenge_id": cid, "handle": f"user{i:05d}",
             "team": f"team{i // 3:04d}" if i % 4 == 0 else None, "name": "",
             "team_confirmed": i % 4 == 0}
            for i in range(n_people)
        ])  # fmt: skip
        conn.execute(insert(Paper), [
            {"id": i + 1, "challenge_id": cid, "venue_id": f"icml26-{i:05d}",
             "title": f"Paper {i} on learning", "authors": ["A. Author"], "abstract": "An "
             "abstract about a method, its results and a table.", "source": "bench"}
            for i in range(n_papers)
        ])  # fmt: skip
        claims: list[dict[str, Any]] = []
        per_paper: dict[int, list[int]] = {}
        for p in range(1, n_papers + 1):
            for k in range(1, rng.randint(4, 9) + 1):
                claims.append({"id": len(claims) + 1, "paper_id": p, "key": f"C{k}",
                               "text": f"claim {k} of paper {p}", "kind": "result"})  # fmt: skip
                per_paper.setdefault(p, []).append(len(claims))
        conn.execute(insert(Claim), claims)
        attempted = rng.sample(range(1, n_papers + 1), n_attempted)
        books: list[dict[str, Any]] = []
        pairs: set[tuple[int, int]] = set()
        # each attempted paper gets one logbook, the rest spread over popular papers
        targets = attempted + [rng.choice(attempted[: max(1, n_attempted // 3)])
                               for _ in range(n_logbooks - n_attempted)]  # fmt: skip
        for paper in targets:
            person = rng.randint(1, n_people)
            while (paper, person) in pairs:
                person = rng.randint(1, n_people)
            pairs.add((paper, person))
            books.append({
                "id": len(books) + 1, "paper_id": paper, "participant_id": person,
                "revision": f"r{len(books):06d}", "format": "bundle",
                "title": f"Attempt {len(books)}",
                "manifest": {"format": "bundle", "format_version": "1",
                             "paper_id": f"icml26-{paper - 1:05d}",
                             "title": f"Attempt {len(books)}",
                             "testimony": [{"page": "p", "cell": "c",
                                            "text": "We ran the experiment."}]},
                "submitted_at": start + timedelta(minutes=len(books) * 4),
            })  # fmt: skip
        conn.execute(insert(Logbook), books)
        verdicts: list[dict[str, Any]] = []
        per_book = target_verdicts / n_logbooks
        for book in books:
            keys = per_paper[book["paper_id"]]
            want = min(len(keys), max(1, round(rng.gauss(per_book, 1.0))))
            for claim in rng.sample(keys, want):
                value = rng.choices(VALUES, WEIGHTS)[0]
                verdicts.append({
                    "id": len(verdicts) + 1, "logbook_id": book["id"], "claim_id": claim,
                    "verdict": value, "rationale": f"[R1] bench {value}",
                    "evidence": [{"kind": "metric", "key": "claims/x/acc", "step": 3}],
                    "flags": ["reduced_scale"] if value == "toy" else [],
                    "provenance": "self-recorded", "judge_config": "bench",
                    "judge_model": "rules:rules-v1",
                    "created_at": book["submitted_at"] + timedelta(hours=1),
                })  # fmt: skip
        for i in range(0, len(verdicts), 20_000):
            conn.execute(insert(Verdict), verdicts[i : i + 20_000])
        conn.execute(insert(VerdictEdit), [
            {"verdict_id": v["id"], "old_value": v["verdict"], "new_value": "inconclusive",
             "editor": "organizer", "reason": "bench override", "source": "override"}
            for v in rng.sample(verdicts, max(1, len(verdicts) // 500))
        ])  # fmt: skip
    return {"papers": n_papers, "attempted": n_attempted, "logbooks": len(books),
            "verdicts": len(verdicts), "participants": n_people, "claims": len(claims)}  # fmt: skip


def timed(fn: Any, repeat: int = 5) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def duckdb_stats(db_file: Path) -> tuple[float, list[Any]]:
    """The seeds' table written directly in DuckDB over the same rows (loaded into DuckDB)."""
    import sqlite3

    import duckdb

    from openrepro.outcomes.compute import _CONSENSUS_SQL
    from openrepro.outcomes.current import current_verdicts_sql
    from openrepro.outcomes.stats import _ROWS_SQL

    src = sqlite3.connect(db_file)
    con = duckdb.connect()
    for table, cols in {
        "papers": "id, challenge_id, venue_id",
        "claims": "id, paper_id, key, status",
        "logbooks": "id, paper_id, participant_id",
        "participants": "id, handle, team, team_confirmed",
        "verdicts": "id, logbook_id, claim_id, verdict, provenance",
        "verdict_edits": "id, verdict_id, new_value",
    }.items():
        rows = src.execute(f"SELECT {cols} FROM {table}").fetchall()
        import pyarrow as pa

        names = [c.strip() for c in cols.split(",")]
        arrow = pa.table({n: [r[i] for r in rows] for i, n in enumerate(names)})
        con.register(f"{table}_arrow", arrow)
        con.execute(f"CREATE TABLE {table} AS SELECT * FROM {table}_arrow")
    sql = (
        "WITH " + current_verdicts_sql(False) + "," + _CONSENSUS_SQL.format(paper_filter="")
        + _ROWS_SQL
    ).replace(":challenge", "1").replace(
        "IN :accepted", "IN ('self-recorded', 'replayed', 'attested')"
    )  # fmt: skip
    return timed(lambda: con.execute(sql).fetchall())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def load(base: str, paths: list[str], clients: int, seconds: float) -> dict[str, float]:
    import httpx

    latencies: list[float] = []
    errors = 0
    deadline = 0.0

    async def client(i: int, http: httpx.AsyncClient) -> None:
        nonlocal errors
        n = i
        while time.perf_counter() < deadline:
            path = paths[n % len(paths)]
            n += clients
            t = time.perf_counter()
            r = await http.get(base + path)
            latencies.append(time.perf_counter() - t)
            errors += r.status_code != 200

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(limits=limits, timeout=30) as http:
        for path in paths:  # warm the page cache once, as a running board would be
            await http.get(base + path)
        started = time.perf_counter()
        deadline = started + seconds
        await asyncio.gather(*(client(i, http) for i in range(clients)))
        elapsed = time.perf_counter() - started
    q = statistics.quantiles(latencies, n=100)
    return {"requests": len(latencies), "errors": errors, "rps": len(latencies) / elapsed,
            "p50_ms": q[49] * 1000, "p95_ms": q[94] * 1000, "p99_ms": q[98] * 1000}  # fmt: skip


def board_load(folder: Path, clients: int = 50, seconds: float = 10.0) -> dict[str, float]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENREPRO_")}
    server = subprocess.Popen(
        [sys.executable, "-m", "openrepro", "--dir", str(folder), "serve", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        import httpx

        for _ in range(200):
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        rng = random.Random(1)
        paths = ["/", "/papers", "/papers?status=contested", "/leaderboard"]
        paths += [f"/papers/icml26-{rng.randrange(6341):05d}" for _ in range(40)]
        paths += [f"/logbooks/{rng.randrange(1, 6816)}" for _ in range(40)]
        paths += [f"/participants/user{rng.randrange(1221):05d}" for _ in range(20)]
        return asyncio.run(load(base, paths, clients, seconds))
    finally:
        server.terminate()
        server.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--no-10x", action="store_true", help="skip the 10x stats figure")
    parser.add_argument("--no-load", action="store_true", help="skip the board load test")
    parser.add_argument("--keep", type=Path, help="keep the generated challenge here")
    parser.add_argument(
        "--database-url",
        default="",
        help="a PostgreSQL database to use instead of SQLite (it is emptied)",
    )
    args = parser.parse_args()
    from openrepro.outcomes import compute_stats

    root = args.keep or Path(tempfile.mkdtemp(prefix="openrepro-bench-"))
    folder = root / "challenge"
    if folder.exists():
        shutil.rmtree(folder)
    ctx = init_challenge(folder, "bench", title="ICML 2026 (bench)",
                         database_url=args.database_url or None)  # fmt: skip
    t = time.perf_counter()
    shape = generate(ctx, args.scale)
    print(f"generated {json.dumps(shape)} in {time.perf_counter() - t:.1f} s")

    seconds, stats = timed(lambda: compute_stats(ctx))
    print(f"stats: {seconds * 1000:.0f} ms (best of 5); examined {stats.rows[0].count}, "
          f"contested {next(r.count for r in stats.rows if r.key == 'contested')}")  # fmt: skip
    db_file = folder / "openrepro.db"
    if db_file.is_file():  # DuckDB reads the SQLite file; on PostgreSQL the figure is skipped
        duck, duck_rows = duckdb_stats(db_file)
        ours = [r.count for r in stats.rows]
        same = [int(x) for x in duck_rows[0]] == ours
        print(f"duckdb, same aggregation: {duck * 1000:.0f} ms (best of 5); ratio "
              f"{seconds / duck:.2f}x; identical rows: {same}")  # fmt: skip

    from openrepro.judge.service import judge_targets, judged_already
    from openrepro.recheck import recheck_queue

    targets = judge_targets(ctx, None, None)
    resume, done = timed(lambda: judged_already(ctx, targets, "bench"), repeat=3)
    print(f"resumed judge --all, finding the work left: {resume * 1000:.0f} ms for "
          f"{len(targets)} logbooks ({len(done)} fully judged)")  # fmt: skip
    queue_s, queue = timed(lambda: recheck_queue(ctx, public=True), repeat=3)
    print(f"re-check queue: {queue_s * 1000:.0f} ms (best of 3), {len(queue)} claims")

    t = time.perf_counter()
    from openrepro.board import build_board_site

    report = build_board_site(ctx, root / "site")
    built = time.perf_counter() - t
    size = sum(p.stat().st_size for p in (root / "site").rglob("*") if p.is_file())
    print(f"site build: {report.pages} pages in {built:.1f} s ({size / 1e6:.0f} MB)")
    t = time.perf_counter()
    again = build_board_site(ctx, root / "site")
    print(f"site rebuild, unchanged: {time.perf_counter() - t:.1f} s ({again.rendered} rendered)")

    from openrepro.freeze import freeze_dataset
    from openrepro.identity import reopen

    t = time.perf_counter()
    freeze_dataset(ctx, root / "frozen")
    size = sum(p.stat().st_size for p in (root / "frozen").rglob("*") if p.is_file())
    print(f"freeze: {time.perf_counter() - t:.1f} s, {size / 1e6:.1f} MB "
          f"({len(list((root / 'frozen').rglob('*.parquet')))} parquet files)")  # fmt: skip
    reopen(ctx)

    if not args.no_load:
        figures = board_load(folder)
        print(
            "board, 50 clients for 10 s: " + ", ".join(f"{k} {v:.1f}" for k, v in figures.items())
        )
    ctx.close()

    if not args.no_10x:
        big = root / "challenge10"
        if big.exists():
            shutil.rmtree(big)
        ctx10 = init_challenge(big, "bench10")  # SQLite: generated ids would clash in one database
        t = time.perf_counter()
        shape10 = generate(ctx10, 10 * args.scale)
        print(f"generated 10x {json.dumps(shape10)} in {time.perf_counter() - t:.1f} s")
        seconds10, _ = timed(lambda: compute_stats(ctx10), repeat=3)
        print(f"stats at 10x: {seconds10 * 1000:.0f} ms (best of 3)")
        ctx10.close()
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
