"""`openrepro serve`: the board and the agents' JSON API on a local port."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

from openrepro.challenge import ChallengeContext
from openrepro.cli._common import err_console, open_from

__all__ = ["judge_workers", "serve"]


@contextmanager
def judge_workers(directory: Path, count: int, *, no_llm: bool = False) -> Iterator[None]:
    """``count`` ``openrepro worker`` processes on the challenge in ``directory`` for as long
    as the board runs (each its own process: judging never waits on the board's requests)."""
    command = [sys.executable, "-m", "openrepro", "--dir", str(directory), "worker", "--quiet",
               *(["--no-llm"] if no_llm else [])]  # fmt: skip
    started = [subprocess.Popen(command) for _ in range(count)]
    try:
        yield
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# Connection limits (head cap, head deadline, per-client and total connection caps, whatever
# HTTP parser is installed) are openrepro.board.server's; body caps, in-flight requests and
# request timeouts are openrepro.board.guard's.


def serve(
    ctx: typer.Context,
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, help="Port to listen on."),
    cache_seconds: float = typer.Option(
        1.0, help="How often the page cache checks whether the store changed (0: no cache)."
    ),
    workers: int = typer.Option(
        1, min=1, max=64, help="Worker processes (each with its own page cache and connections)."
    ),
    cache_pages: int = typer.Option(
        50_000,
        min=1,
        help="Pages and API answers the page cache keeps (least recently read go "
        "first); the event's board (6,341 papers) has about 21,300 pages, some 100 MB.",
    ),
    warm: bool = typer.Option(
        True, help="Build every page ahead in the background, so none waits for a first render."
    ),
    judge_worker_count: int = typer.Option(
        1,
        "--judge-workers",
        min=0,
        max=64,
        help="Judge worker processes started beside the board (`openrepro worker`): every "
        "submission and check change is judged by itself.",
    ),
    no_worker: bool = typer.Option(
        False, "--no-worker", help="Start no judge worker (run `openrepro worker` elsewhere)."
    ),
    judge_no_llm: bool = typer.Option(
        False, "--judge-no-llm", help="The judge workers run without a judge model (--no-llm)."
    ),
) -> None:
    """Serve the board (home, papers, paper, logbook, participant, leaderboard) and the JSON API
    (docs at /api/docs), with judge workers that judge each submission and check change as it
    comes (docs/board.md). For several workers behind a proxy, see docs/deploy.md."""
    challenge = open_from(ctx)
    count = 0 if no_worker else judge_worker_count
    err_console.print(f"board on http://{host}:{port}/  (API docs: /api/docs; Ctrl-C stops); "
                      f"{count} judge worker(s)")  # fmt: skip
    with judge_workers(challenge.settings.directory, count, no_llm=judge_no_llm):
        _run(challenge, host, port, workers, cache_seconds, cache_pages, warm)


def _run(challenge: ChallengeContext, host: str, port: int, workers: int, cache_seconds: float,
         cache_pages: int, warm: bool) -> None:  # fmt: skip
    import uvicorn

    from openrepro.board import create_app
    from openrepro.board.server import uvicorn_options

    if workers > 1:
        # each worker imports the app factory and opens the challenge from OPENREPRO_HOME
        os.environ["OPENREPRO_HOME"] = str(challenge.settings.directory)
        uvicorn.run("openrepro.board.asgi:make_app", factory=True, host=host, port=port,
                    workers=workers, log_level="warning", **uvicorn_options())  # fmt: skip
        return
    app = create_app(challenge, cache_seconds=cache_seconds, cache_pages=cache_pages, warm=warm,
                     settle_heap=True)  # fmt: skip
    uvicorn.run(app, host=host, port=port, log_level="warning", **uvicorn_options())
