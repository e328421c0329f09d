"""Benchmark: honest traffic on the board while hostile clients attack it (bounded, local).

Builds a challenge of ``--papers`` papers with full text, serves it with ``openrepro serve`` (one
process, 127.0.0.1), and measures an honest client mix (home, paper list, a two-word search on the
page and the API, a paper page) first alone, then while hostile clients run the attacks the
board now bounds:

- search DoS: one word repeated 100 times on ``/papers`` and 1,500 times on ``/api/v1/papers``;
- cache filling: a unique query on every request;
- oversized uploads: ``Content-Length`` of 200 MiB without a token, and with a forged token;
- slow clients: connections that send half a body and then nothing (slowloris);
- registration spam on the API.

Prints the honest p50/p95 unloaded and loaded, their ratio (the target: loaded p95 within 2x of
unloaded), and what the hostile requests got (status counts).

    .venv/bin/python bench/hostile_load.py [--papers 2000] [--seconds 10] [--hostile 4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
KINDS = ["search x100", "api search x1500", "unique q", "upload 200MiB", "register"]


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

    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
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


async def hostile(base: str, seconds: float, workers: int) -> Counter[str]:
    seen: Counter[str] = Counter()
    stop = time.monotonic() + seconds
    host, port = base.removeprefix("http://").split(":")

    async def attacker(client: httpx.AsyncClient, k: int) -> None:
        n = 0
        while time.monotonic() < stop:
            n += 1
            kind = n % 5
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
                else:
                    reply = await client.post("/api/v1/participants",
                                              json={"handle": f"spam-{k}-{n}"})  # fmt: skip
                seen[f"{KINDS[kind]} -> {reply.status_code}"] += 1
            except httpx.HTTPError as exc:
                seen[f"error {type(exc).__name__}"] += 1

    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        await asyncio.gather(
            *(attacker(client, k) for k in range(workers)),
            *(slowloris(host, int(port), stop, seen) for _ in range(workers)),
        )
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4, help="honest clients")
    parser.add_argument("--hostile", type=int, default=4, help="hostile clients (and slowloris)")
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

            async def mixed() -> tuple[dict[str, float], Counter[str]]:
                got = await asyncio.gather(
                    honest(base, paths, args.seconds, args.clients),
                    hostile(base, args.seconds, args.hostile),
                )
                return got[0], got[1]

            loaded, seen = asyncio.run(mixed())
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


if __name__ == "__main__":
    main()
