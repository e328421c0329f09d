"""Benchmark: the board's main pages under load, compared with datasette on the same SQLite file.

Generates the event-scale store of ``bench/outcomes_scale.py`` (6,341 papers, 6,816 logbooks,
35,908 verdicts), serves it with ``openrepro serve`` (one process; then, with ``--workers N``,
the same app under ``uvicorn --workers N``) and with ``datasette`` (same file), and drives each
page with a load generator running as a separate process: Debian's ``wrk`` when installed
(``apt-get install wrk``), else an async httpx client in a subprocess (this script with
``--client``). Prints req/s and p50/p95/p99 per page, and the machine.

    .venv/bin/python bench/board_load.py [--seconds 5] [--clients 50] [--workers 2]
        [--generator auto|wrk|python] [--keep DIR]

Pages: home ``/``, paper list ``/papers``, a paper page, a logbook page, ``/leaderboard``, the
API paper list ``/api/v1/papers``; datasette's equivalent listing is ``/openrepro/papers?_size=100``
(a table page of 100 rows; the board's ``/papers`` lists all 6,341 papers with their outcomes).
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
import time
from pathlib import Path
from typing import Any

from openrepro.challenge import init_challenge
from outcomes_scale import free_port, generate, load

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


def run_python(base: str, paths: list[str], clients: int, seconds: float) -> dict[str, float]:
    """The async httpx generator of outcomes_scale.py, in its own process."""
    out = subprocess.run(
        [sys.executable, str(HERE), "--client", base, "--clients", str(clients),
         "--seconds", str(seconds), *paths],
        capture_output=True, text=True, check=True, timeout=seconds + 120,
    ).stdout  # fmt: skip
    return dict(json.loads(out.strip().splitlines()[-1]))


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per page")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2, help="0: skip the multi-worker run")
    parser.add_argument("--generator", choices=["auto", "wrk", "python"], default="auto")
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the generated store here")
    parser.add_argument("--client", metavar="BASE", help=argparse.SUPPRESS)
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:  # the load generator process
        print(json.dumps(asyncio.run(load(args.client, args.paths, args.clients, args.seconds))))
        return

    use_wrk = args.generator == "wrk" or (args.generator == "auto" and shutil.which("wrk"))
    drive = run_wrk if use_wrk else run_python
    print(f"machine: {machine()}")
    print(f"load generator: {'wrk' if use_wrk else 'python httpx (subprocess)'}, "
          f"{args.clients} connections, {args.seconds:g} s per page")  # fmt: skip
    root = args.keep or Path(tempfile.mkdtemp(prefix="openrepro-board-load-"))
    folder = root / "challenge"
    if not (folder / "openrepro.db").exists():
        ctx = init_challenge(folder, "bench", title="ICML 2026 (bench)")
        started = time.perf_counter()
        shape = generate(ctx, 1)
        ctx.close()
        print(f"store: {json.dumps(shape)} generated in {time.perf_counter() - started:.1f} s")
    rng = random.Random(1)
    pages = {
        "home /": ["/"],
        "paper list /papers": ["/papers"],
        "paper page": [f"/papers/icml26-{rng.randrange(6341):05d}" for _ in range(200)],
        "logbook page": [f"/logbooks/{rng.randrange(1, 6817)}" for _ in range(200)],
        "leaderboard": ["/leaderboard"],
        "API /api/v1/papers": ["/api/v1/papers"],
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENREPRO_")}
    results: list[tuple[str, str, dict[str, float]]] = []

    def measure(server: str, base: str, targets: dict[str, list[str]]) -> None:
        for page, paths in targets.items():
            for path in dict.fromkeys(paths):  # warm each page once, as a running board would be
                import httpx

                httpx.get(base + path, timeout=60)
                if len(paths) > 20:
                    break
            # wrk drives one URL; pages sampled over many URLs use the httpx generator process
            generator = drive if len(paths) == 1 else run_python
            figures = generator(base, paths, args.clients, args.seconds)
            results.append((server, page, figures))
            print(f"  {server:<22} {page:<22} {figures['rps']:8.1f} req/s  "
                  f"p50 {figures['p50_ms']:7.1f} ms  p95 {figures['p95_ms']:7.1f} ms  "
                  f"p99 {figures['p99_ms']:7.1f} ms  ({int(figures['requests'])} requests, "
                  f"{int(figures['errors'])} errors)", flush=True)  # fmt: skip

    port = free_port()
    serve = [sys.executable, "-m", "openrepro", "--dir", str(folder), "serve", "--port", str(port)]
    with Server("openrepro serve", serve, f"http://127.0.0.1:{port}/healthz", env):
        measure("openrepro serve", f"http://127.0.0.1:{port}", pages)

    port = free_port()
    datasette = [str(Path(sys.executable).with_name("datasette")), "serve",
                 str(folder / "openrepro.db"), "--port", str(port), "--setting",
                 "num_sql_threads", "3"]  # fmt: skip
    with Server("datasette", datasette, f"http://127.0.0.1:{port}/-/versions.json", env):
        measure("datasette", f"http://127.0.0.1:{port}",
                {"table /openrepro/papers": ["/openrepro/papers?_size=100"],
                 "JSON /openrepro/papers": ["/openrepro/papers.json?_size=100"]})  # fmt: skip

    if args.workers > 1:
        port = free_port()
        uvicorn = [sys.executable, "-m", "uvicorn", "--factory", "board_load:make_app",
                   "--app-dir", str(HERE.parent), "--port", str(port), "--workers",
                   str(args.workers), "--log-level", "warning"]  # fmt: skip
        name = f"uvicorn --workers {args.workers}"
        with Server(name, uvicorn, f"http://127.0.0.1:{port}/healthz",
                    env | {"OPENREPRO_BENCH_DIR": str(folder)}):  # fmt: skip
            measure(
                name,
                f"http://127.0.0.1:{port}",
                {k: pages[k] for k in ("paper list /papers", "paper page", "logbook page")},
            )

    print(json.dumps([{"server": s, "page": p, **f} for s, p, f in results]))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
