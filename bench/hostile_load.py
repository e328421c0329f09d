"""Benchmark: honest traffic on the board while hostile clients attack it (bounded, local).

Builds a challenge of ``--papers`` papers with full text, serves it with ``openrepro serve`` (one
process, 127.0.0.1), and measures an honest client mix (home, paper list, a two-word search on the
page and the API, a paper page) first alone, then while hostile clients run the attacks the
board now bounds:

- search DoS: one word repeated 100 times on ``/papers`` and 1,500 times on ``/api/v1/papers``;
- cache filling: a unique query on every request;
- oversized uploads: ``Content-Length`` of 200 MiB without a token, and with a forged token;
- slow clients: connections that send half a body and then nothing (slowloris);
- registration spam on the API;
- a request head of 4 MiB (the header cap must hold whatever HTTP parser is installed);
- ``--idle`` idle connections (default 1,000) opened and held from one address;
- cache filling through the paper list: crafted cursors (keys between rows), odd
  ``limit``/``offset`` pairs, offsets past the end.

Honest clients connect from 127.0.0.2, the idle-connection hoarder from 127.0.0.3 and the other
hostile clients from 127.0.0.1 (all the loopback interface): per-client connection caps tell
them apart as they would three hosts.

Prints the honest p50/p95 unloaded and loaded, their ratio (the target: loaded p95 within 2x of
unloaded), what the hostile requests got (status counts), and the server's resident memory
before and after the attack.

    .venv/bin/python bench/hostile_load.py [--papers 2000] [--seconds 10] [--hostile 4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

from openrepro.board.cursor import encode_cursor
from openrepro.challenge import init_challenge
from openrepro.papers.records import PaperRecord
from openrepro.papers.service import import_papers

_VOCABULARY = """
model training loss accuracy distillation student teacher attention transformer layer gradient
optimizer learning rate schedule dataset benchmark robustness adversarial noise sparse dense
embedding token sequence language vision diffusion policy reward agent graph kernel convex bound
theorem proof sample complexity regret bandit estimator variance
"""
WORDS = _VOCABULARY.split()
KINDS = ["search x100", "api search x1500", "unique q", "upload 200MiB", "register",
         "crafted cursor", "odd limit/offset", "offset past end", "4 MiB header"]  # fmt: skip
HONEST_ADDRESS = "127.0.0.2"
IDLE_ADDRESS = "127.0.0.3"  # the idle-connection hoarder: a host of its own


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build(folder: Path, papers: int) -> None:
    rng = random.Random(0)
    ctx = init_challenge(folder, "bench", venue="Bench/2026")
    records = [
        PaperRecord(
            venue_id=f"P{i:05d}",
            title=" ".join(rng.choices(WORDS, k=8)).capitalize(),
            abstract=" ".join(rng.choices(WORDS, k=150)),
            full_text=" ".join(rng.choices(WORDS, k=1_500)),
        )
        for i in range(papers)
    ]
    import_papers(ctx.store, ctx.challenge_id, records, source="bench")
    ctx.close()


def honest_paths(rng: random.Random, papers: int) -> list[str]:
    paths = []
    for _ in range(400):
        a, b = rng.sample(WORDS, 2)
        paths += [
            "/",
            f"/papers?q={a}+{b}",
            f"/api/v1/papers?q={a}+{b}&limit=20",
            f"/papers/P{rng.randrange(papers):05d}",
            "/papers?page=2",
        ]
    return paths


async def honest(base: str, paths: list[str], seconds: float, clients: int) -> dict[str, float]:
    latencies: list[float] = []
    errors = 0
    stop = time.monotonic() + seconds

    async def one(client: httpx.AsyncClient, offset: int) -> None:
        nonlocal errors
        i = offset
        while time.monotonic() < stop:
            started = time.perf_counter()
            reply = await client.get(paths[i % len(paths)])
            latencies.append(time.perf_counter() - started)
            errors += reply.status_code != 200
            i += clients

    transport = httpx.AsyncHTTPTransport(local_address=HONEST_ADDRESS)
    async with httpx.AsyncClient(base_url=base, timeout=60, transport=transport) as client:
        await asyncio.gather(*(one(client, k) for k in range(clients)))
    latencies.sort()

    def pct(p: float) -> float:
        return 1000 * latencies[min(len(latencies) - 1, int(p * len(latencies)))]

    return {"requests": len(latencies), "errors": errors, "p50_ms": pct(0.50),
            "p95_ms": pct(0.95)}  # fmt: skip


async def slowloris(host: str, port: int, stop: float, seen: Counter[str]) -> None:
    while time.monotonic() < stop:
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(
                b"POST /api/v1/participants HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
            )
            await writer.drain()
            line = await asyncio.wait_for(
                reader.readline(), timeout=max(1.0, stop - time.monotonic())
            )
            seen[f"slowloris {line.decode(errors='replace').split(' ')[1:2]}"] += 1
            writer.close()
        except (TimeoutError, OSError):
            seen["slowloris held until the end"] += 1


async def big_upload(host: str, port: int, *, forged: bool) -> str:
    """A 200 MiB upload announced by its Content-Length; only its first bytes are sent."""
    reader, writer = await asyncio.open_connection(host, port)
    auth = b"Authorization: Bearer orp_forged\r\n" if forged else b""
    writer.write(b"POST /api/v1/logbooks HTTP/1.1\r\nHost: x\r\n" + auth
                 + b"Content-Type: multipart/form-data; boundary=x\r\n"
                 + f"Content-Length: {200 << 20}\r\n\r\n".encode() + b"--x\r\n" * 1000)  # fmt: skip
    await writer.drain()
    line = await asyncio.wait_for(reader.readline(), timeout=30)
    writer.close()
    return line.decode(errors="replace").split(" ")[1] if line else "closed"


async def huge_header(host: str, port: int) -> str:
    """A request whose head is 4 MiB: refused (the connection closed or a 4xx) if capped."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: ")
        for _ in range(64):
            writer.write(b"a" * 65536)
            await writer.drain()
        writer.write(b"\r\n\r\n")
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), timeout=30)
    except (OSError, TimeoutError):
        return "closed"
    finally:
        writer.close()
    return line.decode(errors="replace").split(" ")[1] if line else "closed"


async def hold_idle(host: str, port: int, count: int, stop: float, seen: Counter[str]) -> None:
    """Open ``count`` connections that send nothing, and keep re-opening them until ``stop``."""

    async def one() -> None:
        while time.monotonic() < stop:
            try:
                reader, writer = await asyncio.open_connection(
                    host, port, local_addr=(IDLE_ADDRESS, 0)
                )
                line = await asyncio.wait_for(
                    reader.readline(), timeout=max(0.1, stop - time.monotonic())
                )
                seen["idle -> busy" if line.startswith(b"HTTP/1.1 503") else "idle -> closed"] += 1
                writer.close()
                await asyncio.sleep(1.0)  # holding connections, not flooding with new ones
            except TimeoutError:
                seen["idle held until the end"] += 1
            except OSError:
                seen["idle refused"] += 1
                await asyncio.sleep(0.5)

    await asyncio.gather(*(one() for _ in range(count)))


async def hostile(base: str, seconds: float, workers: int, idle: int = 0) -> Counter[str]:
    seen: Counter[str] = Counter()
    stop = time.monotonic() + seconds
    host, port = base.removeprefix("http://").split(":")

    async def attacker(client: httpx.AsyncClient, k: int) -> None:
        n = 0
        while time.monotonic() < stop:
            n += 1
            kind = n % len(KINDS)
            try:
                if kind == 0:
                    reply = await client.get("/papers", params={"q": " ".join(["model"] * 100)})
                elif kind == 1:
                    reply = await client.get("/api/v1/papers", params={"q": "loss " * 1_500})
                elif kind == 2:
                    reply = await client.get("/papers", params={"q": f"model z{k}x{n}"})
                elif kind == 3:
                    status = await big_upload(host, int(port), forged=bool(n % 2))
                    seen[f"upload 200MiB -> {status}"] += 1
                    continue
                elif kind == 4:
                    reply = await client.post("/api/v1/participants",
                                              json={"handle": f"spam-{k}-{n}"})  # fmt: skip
                elif kind == 5:
                    crafted = encode_cursor("papers", (f"P{n % 1000:05d}-{k}",))
                    reply = await client.get("/api/v1/papers", params={"cursor": crafted})
                elif kind == 6:
                    odd = {"limit": 1 + n % 997, "offset": n % 50}
                    reply = await client.get("/api/v1/papers", params=odd)
                elif kind == 7:
                    reply = await client.get("/api/v1/papers", params={"offset": 10**9 + n})
                else:
                    status = await huge_header(host, int(port))
                    seen[f"4 MiB header -> {status}"] += 1
                    continue
                seen[f"{KINDS[kind]} -> {reply.status_code}"] += 1
            except httpx.HTTPError as exc:
                seen[f"error {type(exc).__name__}"] += 1

    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        await asyncio.gather(
            *(attacker(client, k) for k in range(workers)),
            *(slowloris(host, int(port), stop, seen) for _ in range(workers)),
            hold_idle(host, int(port), idle, stop, seen),
        )
    return seen


def _attack(
    base: str, seconds: float, workers: int, idle: int, results: multiprocessing.Queue[Counter[str]]
) -> None:
    results.put(asyncio.run(hostile(base, seconds, workers, idle)))


def rss_mib(pid: int) -> float:
    """The resident memory of process ``pid`` in MiB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4, help="honest clients")
    parser.add_argument("--hostile", type=int, default=4, help="hostile clients (and slowloris)")
    parser.add_argument("--idle", type=int, default=1000, help="idle connections held")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="openrepro-hostile-") as tmp:
        folder = Path(tmp) / "ch"
        started = time.perf_counter()
        build(folder, args.papers)
        print(f"store: {args.papers} papers with full text ({time.perf_counter() - started:.1f} s)")
        # slow clients are cut at 2 s here so that the run stays short
        (folder / "openrepro.toml").write_text(
            (folder / "openrepro.toml").read_text() + "client_timeout_s = 2.0\n"
        )
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENREPRO_")}
        server = subprocess.Popen(
            [sys.executable, "-m", "openrepro", "--dir", str(folder), "serve", "--port", str(port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(200):
                try:
                    if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            paths = honest_paths(random.Random(1), args.papers)
            asyncio.run(honest(base, paths, 2.0, args.clients))  # warm up
            alone = asyncio.run(honest(base, paths, args.seconds, args.clients))
            rss_before = rss_mib(server.pid)

            # the attack runs in a process of its own, so that its thousand connections do not
            # slow the honest clients' own event loop (and so their measured latency)
            results: multiprocessing.Queue[Counter[str]] = multiprocessing.Queue()
            attack = multiprocessing.Process(
                target=_attack, args=(base, args.seconds, args.hostile, args.idle, results)
            )
            attack.start()
            loaded = asyncio.run(honest(base, paths, args.seconds, args.clients))
            seen = results.get(timeout=120)
            attack.join(timeout=30)
            rss_after = rss_mib(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
    ratio = loaded["p95_ms"] / alone["p95_ms"] if alone["p95_ms"] else float("inf")
    print(json.dumps({"honest_alone": alone, "honest_under_attack": loaded,
                      "p95_ratio": round(ratio, 2)}, indent=2))  # fmt: skip
    print("hostile requests:")
    for key, count in sorted(seen.items()):
        print(f"  {key}: {count}")
    print(f"honest p95: {alone['p95_ms']:.1f} ms alone, {loaded['p95_ms']:.1f} ms under attack "
          f"({ratio:.2f}x; target <= 2x) on {os.cpu_count()} CPUs")  # fmt: skip
    print(
        f"server memory: {rss_before:.0f} MiB before the attack, {rss_after:.0f} MiB after "
        f"(+{rss_after - rss_before:.0f} MiB)"
    )


if __name__ == "__main__":
    main()
