"""Benchmark: the board's pages under load, on SQLite and PostgreSQL, beside datasette.

Generates the event-scale store of ``bench/outcomes_scale.py`` (6,341 papers, 6,816 logbooks,
33,421 verdicts, 1,221 participants), serves it with ``openrepro serve`` (which builds every
page ahead in the background; the bench waits for that and says how long it took), and drives
each page kind with a load generator in a separate process: Debian's ``wrk`` when installed
(``apt-get install wrk``), else an async httpx client (this script with ``--client``). Then:
the same store served with ``--no-warm`` and driven over pages never rendered before (first
renders); the same store in PostgreSQL (``--database-url``); datasette on the SQLite file; a
store 10 times larger. Prints req/s and p50/p95/p99 per page kind, the machine and the
generator, and at the end all figures as JSON.

    source scripts/postgres.sh
    .venv/bin/python bench/board_load.py --database-url "$OPENREPRO_TEST_POSTGRES_URL"
        [--seconds 5] [--clients 50] [--workers 2] [--generator auto|wrk|python] [--no-10x]
        [--no-datasette] [--keep DIR]

Page kinds: home ``/``; the paper list ``/papers`` (200 papers a page, 30 pages followed by
their ``next`` cursors); paper, logbook, logbook-content and participant pages (200 of each,
at random); the leaderboard's cursor pages; the API paper list ``/api/v1/papers`` (100 a page,
30 cursors); all of them mixed. datasette's counterparts: a table page of 100 papers, its JSON,
one row.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from openrepro.challenge import init_challenge, open_challenge
from openrepro.store import Claim, Logbook, Verdict
from outcomes_scale import free_port, generate
from outcomes_scale import load as drive_python

HERE = Path(__file__).resolve()
WRK_SCRIPT = """
local paths = {%s}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i %% #paths) + 1])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "JSON {\\"requests\\": %%d, \\"errors\\": %%d, \\"non2xx\\": 0, \\"us\\": %%d, " ..
    "\\"p50\\": %%d, \\"p95\\": %%d, \\"p99\\": %%d}\\n",
    summary.requests, e.connect + e.read + e.write + e.timeout + e.status, summary.duration,
    latency:percentile(50), latency:percentile(95), latency:percentile(99)))
end
"""


def machine() -> str:
    mem = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) // (1024 * 1024)
    except OSError:
        pass
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load_avg = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    system = f"{platform.system()} {platform.release()}"
    return (f"{os.cpu_count()} cores ({cpu}), {mem} GiB RAM, {system}, "
            f"Python {platform.python_version()}, load average {load_avg:.1f}")  # fmt: skip


def wait_up(url: str, seconds: float = 60) -> None:
    import httpx

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up")


def run_wrk(base: str, paths: list[str], clients: int, seconds: float) -> dict[str, float]:
    listed = ", ".join(json.dumps(p) for p in paths)
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT % listed)
    try:
        out = subprocess.run(
            ["wrk", "-t2", f"-c{clients}", f"-d{max(1, round(seconds))}s", "--timeout", "30s",
             "-s", script.name, base + paths[0]],
            capture_output=True, text=True, check=True, timeout=seconds + 60,
        ).stdout  # fmt: skip
    finally:
        os.unlink(script.name)
    raw = json.loads(out[out.index("JSON ") + 5 :].splitlines()[0])
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"requests": raw["requests"], "errors": raw["errors"] + int(non2xx[1] if non2xx else 0),
            "rps": raw["requests"] / (raw["us"] / 1e6), "p50_ms": raw["p50"] / 1000,
            "p95_ms": raw["p95"] / 1000, "p99_ms": raw["p99"] / 1000}  # fmt: skip


def make_app() -> Any:
    """The board of ``$OPENREPRO_BENCH_DIR`` (a factory for ``uvicorn --factory --workers N``)."""
    from openrepro.board import create_app
    from openrepro.challenge import open_challenge

    return create_app(open_challenge(Path(os.environ["OPENREPRO_BENCH_DIR"])))


class Server:
    def __init__(self, name: str, command: list[str], health: str, env: dict[str, str]) -> None:
        self.name, self.health = name, health
        self.log = tempfile.TemporaryFile()  # noqa: SIM115  (closed in __exit__)
        self.proc = subprocess.Popen(command, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT)  # fmt: skip

    def __enter__(self) -> Server:
        wait_up(self.health)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is not None:  # it died under load: say why
            self.log.seek(0)
            print(f"{self.name} exited with {self.proc.returncode}:", self.log.read()[-3000:])
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def follow(base: str, first: str, pages: int, api: bool = False) -> list[str]:
    """``first`` and the pages its ``next`` cursors lead to (up to ``pages`` in all)."""
    import httpx

    out: list[str] = []
    path = first
    while path and len(out) < pages:
        out.append(path)
        reply = httpx.get(base + path, timeout=120)
        if api:
            cursor = reply.json().get("next")
            path = f"{first.split('?')[0]}?cursor={cursor}" if cursor else ""
        else:
            found = re.search(r'href="([^"]+)" rel="next"', reply.text)
            path = found[1].replace("&amp;", "&") if found else ""
    return out


def wait_built(base: str, limit: float) -> tuple[float, int]:
    """Seconds until the board built every page ahead (or ``limit``), and what was left."""
    import httpx

    started = time.perf_counter()
    left = -1
    while time.perf_counter() - started < limit:
        left = int(httpx.get(base + "/healthz", timeout=30).json().get("building", 0))
        if left == 0:
            break
        time.sleep(2)
    return time.perf_counter() - started, left


class VerdictWriter:
    """Writes ``rate`` new verdicts a second into the store while the board is under load, as
    the judge would (each on a random logbook and one of its paper's claims)."""

    def __init__(self, folder: Path, rate: float) -> None:
        self.folder, self.rate = folder, rate
        self.written = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        ctx = open_challenge(self.folder, migrate=False)
        rng = random.Random(5)
        try:
            with ctx.store.session() as session:
                top = session.scalar(select(func.max(Logbook.id))) or 0
            while not self.stop.wait(1 / self.rate):
                with ctx.store.session() as session:
                    book = session.get(Logbook, rng.randint(1, top))
                    if book is None:
                        continue
                    claim = session.scalar(
                        select(Claim.id).where(Claim.paper_id == book.paper_id).limit(1)
                    )
                    session.add(Verdict(logbook_id=book.id, claim_id=claim,
                                        verdict=rng.choice(["verified", "falsified"]),
                                        judge_config=f"bench-writer-{time.time_ns()}",
                                        provenance="self-recorded",
                                        created_at=datetime.now(UTC)))  # fmt: skip
                    session.commit()
                self.written += 1
        finally:
            ctx.close()

    def __enter__(self) -> VerdictWriter:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(30)


def make_store(folder: Path, scale: int, database_url: str | None) -> None:
    if (folder / "openrepro.toml").exists():
        return
    ctx = init_challenge(folder, "bench", title="ICML 2026 (bench)", database_url=database_url)
    started = time.perf_counter()
    shape = generate(ctx, scale)
    ctx.close()
    print(f"store ({'PostgreSQL' if database_url else 'SQLite'}, {scale}x): {json.dumps(shape)} "
          f"generated in {time.perf_counter() - started:.1f} s", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per page")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--workers", type=int, default=0, help="also serve with N workers")
    parser.add_argument("--generator", choices=["auto", "wrk", "python"], default="auto")
    parser.add_argument("--database-url", help="also run on this PostgreSQL (an empty database)")
    parser.add_argument("--no-10x", action="store_true", help="skip the run at 10x scale")
    parser.add_argument("--no-datasette", action="store_true")
    parser.add_argument("--warm-wait", type=float, default=900,
                        help="at most this long waiting for the pages built ahead")  # fmt: skip
    parser.add_argument(
        "--write-rate",
        type=float,
        default=2.0,
        help="new verdicts a second written during a last mixed run (0: none)",
    )
    parser.add_argument(
        "--only-mixed", action="store_true", help="of the warm board, only the mixed runs"
    )
    parser.add_argument(
        "--only-board",
        action="store_true",
        help="just the warm board on SQLite (e.g. with --server-src)",
    )
    parser.add_argument(
        "--server-src",
        type=Path,
        help="serve this source tree instead (to compare with an older one)",
    )
    parser.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        help="pass this to `openrepro serve` (e.g. --serve-arg=--no-warm)",
    )
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the generated stores here")
    parser.add_argument("--client", metavar="BASE", help=argparse.SUPPRESS)
    parser.add_argument("--cold", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:  # the load generator process
        figures = asyncio.run(
            drive_python(args.client, args.paths, args.clients, args.seconds, not args.cold)
        )
        print(json.dumps(figures))
        return

    use_wrk = args.generator == "wrk" or (args.generator == "auto" and shutil.which("wrk"))
    print(f"machine: {machine()}")
    print(f"load generator: {'wrk (2 threads)' if use_wrk else 'python httpx'}, a separate "
          f"process on the same machine, {args.clients} connections, {args.seconds:g} s per "
          "page kind; every page requested once before (warm), except the cold runs",
          flush=True)  # fmt: skip
    root = args.keep or Path(tempfile.mkdtemp(prefix="openrepro-board-load-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENREPRO_")}
    if args.server_src:
        env["PYTHONPATH"] = str(args.server_src.resolve())
        print(f"serving the source tree {args.server_src}")
    results: list[dict[str, Any]] = []

    def measure(server: str, base: str, page: str, paths: list[str], cold: bool = False) -> None:
        if use_wrk and not cold:  # the caller requested every path once already
            figures = run_wrk(base, paths, args.clients, args.seconds)
        else:
            out = subprocess.run(
                [sys.executable, str(HERE), "--client", base, "--clients", str(args.clients),
                 "--seconds", str(args.seconds), *(["--cold"] if cold else []), *paths],
                capture_output=True, text=True, check=True, timeout=args.seconds + 600,
            ).stdout  # fmt: skip
            figures = json.loads(out.strip().splitlines()[-1])
        results.append({"server": server, "page": page, **figures})
        print(f"  {server:<26} {page:<34} {figures['rps']:8.1f} req/s  "
              f"p50 {figures['p50_ms']:7.1f} ms  p95 {figures['p95_ms']:7.1f} ms  "
              f"p99 {figures['p99_ms']:7.1f} ms  ({int(figures['requests'])} requests, "
              f"{int(figures['errors'])} errors)", flush=True)  # fmt: skip

    def warm_all(base: str, paths: list[str]) -> None:
        import httpx

        with httpx.Client(timeout=120) as http:
            for path in dict.fromkeys(paths):
                http.get(base + path)

    def board_pages(base: str, scale: int) -> dict[str, list[str]]:
        rng = random.Random(1)
        papers, books, people = 6341 * scale, 6816 * scale, 1221 * scale
        return {
            "home /": ["/"],
            "paper list /papers (30 cursor pages)": follow(base, "/papers", 30),
            "paper page (200 papers)": [
                f"/papers/icml26-{rng.randrange(papers):05d}" for _ in range(200)
            ],
            "logbook page (200 logbooks)": [
                f"/logbooks/{rng.randrange(1, books + 1)}" for _ in range(200)
            ],
            "logbook content (200)": [
                f"/logbooks/{rng.randrange(1, books + 1)}/content" for _ in range(200)
            ],
            "participant page (200)": [
                f"/participants/user{rng.randrange(people):05d}" for _ in range(200)
            ],
            "leaderboard (cursor pages)": follow(base, "/leaderboard", 10),
            "API /api/v1/papers (30 cursors)": follow(base, "/api/v1/papers", 30, api=True),
        }

    def run_board(label: str, folder: Path, scale: int, warm_limit: float) -> None:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        serve = [sys.executable, "-m", "openrepro", "--dir", str(folder), "serve", "--port",
                 str(port), *args.serve_arg]  # fmt: skip
        with Server(label, serve, f"{base}/healthz", env):
            took, left = wait_built(base, warm_limit)
            print(f"  {label}: pages built ahead in {took:.0f} s"
                  + (f" ({left} still queued when measuring began)" if left else ""),
                  flush=True)  # fmt: skip
            targets = board_pages(base, scale)
            mixed: list[str] = []
            for page, paths in targets.items():
                warm_all(base, paths)
                if not args.only_mixed:
                    measure(label, base, page, paths)
                mixed += paths
            random.Random(2).shuffle(mixed)
            measure(label, base, "mixed (all of the above)", mixed)
            if args.write_rate > 0:
                with VerdictWriter(folder, args.write_rate) as writer:
                    measure(label, base, f"mixed, {args.write_rate:g} new verdicts/s", mixed)
                print(f"  ({writer.written} verdicts written during that run)", flush=True)

    def run_cold(label: str, folder: Path) -> None:
        """A board that builds nothing ahead, driven over pages never rendered before."""
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        serve = [sys.executable, "-m", "openrepro", "--dir", str(folder), "serve", "--port",
                 str(port), "--no-warm"]  # fmt: skip
        with Server(label, serve, f"{base}/healthz", env):
            order = list(range(6341))
            random.Random(3).shuffle(order)
            measure(label, base, "paper page, first renders",
                    [f"/papers/icml26-{i:05d}" for i in order], cold=True)  # fmt: skip
            order = list(range(1, 6817))
            random.Random(4).shuffle(order)
            measure(label, base, "logbook page, first renders",
                    [f"/logbooks/{i}" for i in order], cold=True)  # fmt: skip

    sqlite_folder = root / "challenge"
    make_store(sqlite_folder, 1, None)
    run_board("serve (SQLite)", sqlite_folder, 1, args.warm_wait)
    if args.only_board:
        print(json.dumps(results))
        return
    run_cold("serve --no-warm (SQLite)", sqlite_folder)

    if args.database_url:
        pg_folder = root / "challenge-pg"
        make_store(pg_folder, 1, args.database_url)
        run_board("serve (PostgreSQL)", pg_folder, 1, args.warm_wait)

    datasette = Path(sys.executable).with_name("datasette")
    if args.no_datasette:
        pass
    elif not datasette.exists():
        print("datasette: not installed (pip install datasette) - no baseline")
    else:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        command = [str(datasette), "serve", str(sqlite_folder / "openrepro.db"), "--port",
                   str(port), "--setting", "num_sql_threads", "3"]  # fmt: skip
        with Server("datasette", command, f"{base}/-/versions.json", env):
            for page, path in (("table /openrepro/papers", "/openrepro/papers?_size=100"),
                               ("JSON /openrepro/papers", "/openrepro/papers.json?_size=100"),
                               ("row /openrepro/papers/1", "/openrepro/papers/1")):  # fmt: skip
                warm_all(base, [path])
                measure("datasette (SQLite)", base, page, [path])

    if args.workers > 1:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        uvicorn = [sys.executable, "-m", "uvicorn", "--factory", "board_load:make_app",
                   "--app-dir", str(HERE.parent), "--port", str(port), "--workers",
                   str(args.workers), "--log-level", "warning"]  # fmt: skip
        name = f"uvicorn --workers {args.workers}"
        with Server(name, uvicorn, f"{base}/healthz",
                    env | {"OPENREPRO_BENCH_DIR": str(sqlite_folder)}):  # fmt: skip
            wait_built(base, args.warm_wait)
            for page, paths in board_pages(base, 1).items():
                warm_all(base, paths)
                measure(name, base, page, paths)

    if not args.no_10x:
        tenx = root / "challenge-10x"
        make_store(tenx, 10, None)
        args.serve_arg.append("--cache-pages=250000")  # all of its 211,940 pages
        run_board("serve (SQLite, 10x)", tenx, 10, args.warm_wait)

    print(json.dumps(results))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
