"""`openrepro serve` as people start it: one process, or several uvicorn workers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from outcome_store import build_outcome_store

from openrepro.challenge import init_challenge


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("workers", [1, 2])
def test_serve_answers_on_127_0_0_1(tmp_path: Path, workers: int) -> None:
    """The board answers with N uvicorn processes. The store's verdicts are built directly, not
    judged from logbooks, so no judge worker runs (one would re-judge them on its first start:
    tests/remote/test_hosted_flow.py tests the board with its worker)."""
    ctx = init_challenge(tmp_path / "ch", "serve-test")
    build_outcome_store(ctx)
    ctx.close()
    port = _port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENREPRO_")}
    server = subprocess.Popen(
        [sys.executable, "-m", "openrepro", "--dir", str(tmp_path / "ch"), "serve", "--port",
         str(port), "--workers", str(workers), "--no-worker"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                reply = httpx.get(f"http://127.0.0.1:{port}/leaderboard", timeout=5)
                break
            except httpx.HTTPError:
                assert server.poll() is None, server.stdout.read() if server.stdout else ""
                assert time.monotonic() < deadline, "the board did not start"
                time.sleep(0.2)
        assert reply.status_code == 200 and "alice" in reply.text
        assert reply.headers["x-content-type-options"] == "nosniff"
        stats = httpx.get(f"http://127.0.0.1:{port}/api/v1/stats", timeout=5).json()
        assert {r["key"]: r["count"] for r in stats["rows"]}["contested"] == 1
    finally:
        server.terminate()
        server.wait(timeout=20)
