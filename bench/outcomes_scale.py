"""Benchmark: outcomes, stats, the static board, the freeze and the live board at event scale.

Generates a store shaped like ICML 2026's challenge (6,341 papers, 2,226 attempted, 6,816
logbooks, 35,908 claim verdicts, 1,221 participants; ~5 claims per attempted paper, teams,
revisions, organizer edits, every outcome row represented), then prints:

* `stats` wall time from the derived tables (first call, which builds them, then best of 5), the
  same figures from the full query (the implementation before the derived tables; answers
  compared), and the seeds' table written directly in DuckDB over the same rows;
* stats after one judge write (one paper rebuilt), the resumed judge's look-up, the re-check queue;
* stats at 10x scale;
* `site build` of the whole board (first build, then an unchanged rebuild);
* freeze time and size (when the freeze package is present);
* board latency under 50 concurrent clients (p50/p95/p99, req/s) against `openrepro serve`
  running in its own process.

    source scripts/postgres.sh     # optional: every figure on PostgreSQL too, in the same run
    .venv/bin/python bench/outcomes_scale.py [--scale 1] [--no-10x] [--no-load] [--no-site]
        [--no-freeze] [--keep DIR] [--database-url POSTGRES_ADMIN_URL]

Goals: stats <= 2x DuckDB, and <= 1 s at 10x; re-check queue <= 0.5 s; site build <= 30 s;
p95 <= 50 ms.
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

from sqlalchemy import insert, text

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
        if conn.dialect.name == "postgresql":  # explicit ids: move the id sequences past them
            for table in ("participants", "papers", "claims", "logbooks", "verdicts",
                          "verdict_edits"):  # fmt: skip
                conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                  f"(SELECT MAX(id) FROM {table}))"))  # fmt: skip
    return {"papers": n_papers, "attempted": n_attempted, "logbooks": len(books),
            "verdicts": len(verdicts), "participants": n_people, "claims": len(claims)}  # fmt: skip


def timed(fn: Any, repeat: int = 5) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def duckdb_stats(ctx: ChallengeContext) -> tuple[float, list[Any]]:
    """The seeds' table written directly in DuckDB over the same rows (copied from the store,
    SQLite or PostgreSQL, into DuckDB), with the full query (the reference statements)."""
    import duckdb
    import pyarrow as pa
    from sqlalchemy import column, select
    from sqlalchemy import table as named_table
    from sqlalchemy.dialects import postgresql

    from openrepro.outcomes.compute import Views
    from openrepro.outcomes.consensus import CONSENSUS_SQL
    from openrepro.outcomes.current import CurrentRows, accepted_levels, current_query
    from openrepro.outcomes.derived import ConsensusRows
    from openrepro.outcomes.stats import _reference_rows
    from openrepro.store.tables_outcomes import OutcomeClaim

    con = duckdb.connect()
    with ctx.store.engine.connect() as src:
        for table, cols in {
            "papers": "id, challenge_id, venue_id",
            "claims": "id, paper_id, key, status",
            "logbooks": "id, paper_id, participant_id",
            "participants": "id, handle, team, team_confirmed, identity_source",
            "verdicts": "id, logbook_id, claim_id, verdict, provenance, provisional",
            "verdict_edits": "id, verdict_id, new_value",
        }.items():
            rows = src.execute(text(f"SELECT {cols} FROM {table}")).all()
            names = [c.strip() for c in cols.split(",")]
            arrow = pa.table({n: [r[i] for r in rows] for i, n in enumerate(names)})
            con.register(f"{table}_arrow", arrow)
            con.execute(f"CREATE TABLE {table} AS SELECT * FROM {table}_arrow")
    # the current-verdict query, compiled for PostgreSQL with its values inlined (DuckDB reads
    # that SQL), nested as the CTEs eff and latest_logbook
    cur = current_query(ctx.challenge_id, open_registration=False,
                        accepted=accepted_levels(ctx.settings.min_provenance_verified))  # fmt: skip

    def inline(statement: Any) -> str:
        dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
        return str(statement.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))

    # the seeds' rows (the stats' Core select) over the consensus and eff of that WITH
    def rows_of(name: str, names: list[str]) -> Any:
        return select(named_table(name, *(column(n) for n in names))).cte(f"{name}_rows")

    consensus_names = [c.name for c in OutcomeClaim.__table__.c if c.name != "challenge_id"]
    views = Views(
        current=CurrentRows(
            latest_logbook=rows_of("latest_logbook", ["id"]),
            eff=rows_of("eff", [c.name for c in cur.columns]),
        ),
        consensus=ConsensusRows(consensus=rows_of("consensus", consensus_names)),
    )
    sql = (
        f"WITH eff AS ({inline(select(*cur.columns))}),"
        f" latest_logbook AS ({inline(select(cur.latest_logbook.c.id))}),"
        + CONSENSUS_SQL.format(paper_filter="")
        + f" SELECT * FROM ({inline(_reference_rows(views))})"
    ).replace(":challenge", str(ctx.challenge_id))  # fmt: skip
    return timed(lambda: con.execute(sql).fetchall())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def load(
    base: str, paths: list[str], clients: int, seconds: float, warm: bool = True
) -> dict[str, float]:
    """``clients`` connections, each requesting the next of ``paths`` as soon as its previous
    answer came (``warm``: every path requested once first, as a running board would be)."""
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
        if warm:
            for path in paths:
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


def fresh_database(server: str, tag: str) -> tuple[str, Any]:
    """A new, empty PostgreSQL database on ``server`` (a URL); its URL and a dropper."""
    from sqlalchemy import create_engine

    name = f"bench_{tag}_{os.getpid()}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return server.rsplit("/", 1)[0] + "/" + name, drop


def open_store(root: Path, label: str, name: str, server: str) -> tuple[ChallengeContext, Any]:
    folder = root / name
    if folder.exists():
        shutil.rmtree(folder)
    url, drop = (None, lambda: None) if label == "sqlite" else fresh_database(server, name)
    ctx = init_challenge(folder, "bench", title="ICML 2026 (bench)", database_url=url)
    return ctx, drop


def judge_write(ctx: ChallengeContext) -> None:
    """What the judge's transaction for one logbook writes: a verdict per claim of its paper."""
    from sqlalchemy import select

    with ctx.store.session() as session:
        book = session.scalars(select(Logbook).order_by(Logbook.id.desc()).limit(1)).one()
        claims = session.scalars(select(Claim.id).where(Claim.paper_id == book.paper_id)).all()
        session.add_all(
            Verdict(logbook_id=book.id, claim_id=c, verdict="verified", judge_config="bench-2",
                    provenance="self-recorded", rationale="[R1] bench rerun")
            for c in claims
        )  # fmt: skip


def stats_figures(ctx: ChallengeContext, label: str, repeat: int = 5) -> float:
    """stats from the derived tables (first call builds them), the full query, DuckDB."""
    from openrepro.outcomes import compute_stats

    t = time.perf_counter()
    compute_stats(ctx)
    print(f"[{label}] stats, first call (builds the derived tables): "
          f"{(time.perf_counter() - t) * 1000:.0f} ms")  # fmt: skip
    seconds, stats = timed(lambda: compute_stats(ctx), repeat)
    print(f"[{label}] stats: {seconds * 1000:.0f} ms (best of {repeat}); examined "
          f"{stats.rows[0].count}, contested "
          f"{next(r.count for r in stats.rows if r.key == 'contested')}")  # fmt: skip
    old_repeat = 1 if "10x" in label else 3
    old_s, old = timed(lambda: compute_stats(ctx, reference=True), old_repeat)
    public = compute_stats(ctx, public=True) == compute_stats(ctx, public=True, reference=True)
    print(f"[{label}] stats, full query (before): {old_s * 1000:.0f} ms (best of "
          f"{old_repeat}); identical answers: {old == stats}, public: {public}")  # fmt: skip
    duck, duck_rows = duckdb_stats(ctx)
    same = [int(x) for x in duck_rows[0]] == [r.count for r in stats.rows]
    print(f"[{label}] duckdb, same aggregation: {duck * 1000:.0f} ms (best of 5); ratio "
          f"{seconds / duck:.2f}x (before {old_s / duck:.2f}x); identical rows: "
          f"{same}")  # fmt: skip
    return seconds


def run_backend(args: argparse.Namespace, root: Path, label: str) -> None:
    from openrepro.board import build_board_site
    from openrepro.freeze import freeze_dataset
    from openrepro.identity import reopen
    from openrepro.judge.service import judge_targets, judged_already
    from openrepro.outcomes import compute_stats
    from openrepro.recheck import recheck_queue

    ctx, drop = open_store(root, label, "challenge", args.database_url)
    folder = root / "challenge"
    t = time.perf_counter()
    shape = generate(ctx, args.scale)
    print(f"[{label}] generated {json.dumps(shape)} in {time.perf_counter() - t:.1f} s")
    stats_figures(ctx, label)

    judge_write(ctx)
    t = time.perf_counter()
    after = compute_stats(ctx)
    print(f"[{label}] stats after a judge write (one paper rebuilt): "
          f"{(time.perf_counter() - t) * 1000:.0f} ms; identical answers: "
          f"{after == compute_stats(ctx, reference=True)}")  # fmt: skip

    targets = judge_targets(ctx, None, None)
    resume, done = timed(lambda: judged_already(ctx, targets, "bench"), repeat=3)
    print(f"[{label}] resumed judge --all, finding the work left: {resume * 1000:.0f} ms for "
          f"{len(targets)} logbooks ({len(done)} fully judged)")  # fmt: skip
    queue_s, queue = timed(lambda: recheck_queue(ctx, public=True), repeat=3)
    print(f"[{label}] re-check queue: {queue_s * 1000:.0f} ms (best of 3), {len(queue)} claims")

    if not args.no_site:
        t = time.perf_counter()
        report = build_board_site(ctx, root / "site")
        built = time.perf_counter() - t
        size = sum(p.stat().st_size for p in (root / "site").rglob("*") if p.is_file())
        print(f"[{label}] site build: {report.pages} pages in {built:.1f} s ({size / 1e6:.0f} MB)")
        t = time.perf_counter()
        again = build_board_site(ctx, root / "site")
        print(f"[{label}] site rebuild, unchanged: {time.perf_counter() - t:.1f} s "
              f"({again.rendered} rendered)")  # fmt: skip
        shutil.rmtree(root / "site", ignore_errors=True)

    if not args.no_freeze:
        t = time.perf_counter()
        freeze_dataset(ctx, root / "frozen")
        size = sum(p.stat().st_size for p in (root / "frozen").rglob("*") if p.is_file())
        print(f"[{label}] freeze: {time.perf_counter() - t:.1f} s, {size / 1e6:.1f} MB "
              f"({len(list((root / 'frozen').rglob('*.parquet')))} parquet files)")  # fmt: skip
        reopen(ctx)
        shutil.rmtree(root / "frozen", ignore_errors=True)

    if not args.no_load and label == "sqlite":
        figures = board_load(folder)
        print(f"[{label}] board, 50 clients for 10 s: "
              + ", ".join(f"{k} {v:.1f}" for k, v in figures.items()))  # fmt: skip
    ctx.close()
    drop()

    if not args.no_10x:
        ctx10, drop10 = open_store(root, label, "challenge10", args.database_url)
        t = time.perf_counter()
        shape10 = generate(ctx10, 10 * args.scale)
        print(f"[{label}] generated 10x {json.dumps(shape10)} in {time.perf_counter() - t:.1f} s")
        seconds10 = stats_figures(ctx10, f"{label} 10x", repeat=3)
        print(f"[{label}] stats at 10x: {seconds10 * 1000:.0f} ms (best of 3)")
        ctx10.close()
        drop10()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--no-10x", action="store_true", help="skip the 10x stats figures")
    parser.add_argument("--no-load", action="store_true", help="skip the board load test")
    parser.add_argument("--no-site", action="store_true", help="skip the site build figures")
    parser.add_argument("--no-freeze", action="store_true", help="skip the freeze figure")
    parser.add_argument("--keep", type=Path, help="keep the generated challenges here")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("OPENREPRO_TEST_POSTGRES_URL", ""),
        help="a PostgreSQL server (admin URL) to run every figure on too, in fresh databases "
        "(default: $OPENREPRO_TEST_POSTGRES_URL, which scripts/postgres.sh sets)",
    )
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="openrepro-bench-"))
    for label in ["sqlite"] + (["postgresql"] if args.database_url else []):
        run_backend(args, root, label)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
