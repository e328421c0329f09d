"""Helpers of the board tests: a live uvicorn server on 127.0.0.1, archives, hostile content."""

from __future__ import annotations

import socket
import tarfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from test_bundle import make_bundle

from openrepro.board import create_app
from openrepro.board.server import uvicorn_options
from openrepro.challenge import ChallengeContext

__all__ = ["HOSTILE", "hostile_bundle", "live_board", "tarball", "wait_built"]

#: Participant text meant to run script or load foreign resources if anything were unescaped.
HOSTILE = (
    '<script>window.__pwned = 1; alert("xss")</script>'
    '<img src="http://evil.example/x.png" onerror="window.__pwned = 2">'
    '[click](javascript:window.__pwned=3) <svg onload="window.__pwned=4"></svg>'
    '<iframe src="http://evil.example/"></iframe>'
)


def wait_built(cache: Any, seconds: float, settle: float = 0.0) -> None:
    """Wait (at most ``seconds``) until a page cache has nothing left to build ahead, then
    ``settle`` more seconds for a build its worker had already taken off the queue."""
    deadline = time.monotonic() + seconds
    while cache.pending() and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(settle)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def live_board(ctx: ChallengeContext, cache_seconds: float = 0.0) -> Iterator[str]:
    """The board served by a real uvicorn on 127.0.0.1; yields its base URL."""
    port = _free_port()
    config = uvicorn.Config(
        create_app(ctx, cache_seconds=cache_seconds), host="127.0.0.1", port=port,
        log_level="warning", **uvicorn_options(),
    )  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the board did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def tarball(folder: Path, target: Path) -> Path:
    with tarfile.open(target, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    return target


def hostile_bundle(root: Path, paper: str = "p1", participant: str = "mallory") -> Path:
    """A valid bundle whose title, write-up, output and metric keys are hostile."""
    overrides: dict[str, Any] = {
        "paper": paper,
        "participant": participant,
        "title": f"Attempt {HOSTILE}",
    }
    folder = make_bundle(root, **overrides)
    (folder / "README.md").write_text(f"# Claim {paper}/C1: verified\n\n{HOSTILE}\n")
    (folder / "logs" / "seed0.txt").write_text(f"epoch 1\n{HOSTILE}\naccuracy 0.87\n")
    return folder
