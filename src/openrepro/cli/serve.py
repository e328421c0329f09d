"""`openrepro serve`: the board and the agents' JSON API on a local port."""

from __future__ import annotations

import os

import typer

from openrepro.cli._common import err_console, open_from

__all__ = ["serve"]

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
) -> None:
    """Serve the board (home, papers, paper, logbook, participant, leaderboard) and the JSON API
    (docs at /api/docs). For several workers behind a proxy, see docs/deploy.md."""
    import uvicorn

    from openrepro.board import create_app
    from openrepro.board.server import uvicorn_options

    challenge = open_from(ctx)
    err_console.print(f"board on http://{host}:{port}/  (API docs: /api/docs; Ctrl-C stops)")
    if workers > 1:
        # each worker imports the app factory and opens the challenge from OPENREPRO_HOME
        os.environ["OPENREPRO_HOME"] = str(challenge.settings.directory)
        uvicorn.run("openrepro.board.asgi:make_app", factory=True, host=host, port=port,
                    workers=workers, log_level="warning", **uvicorn_options())  # fmt: skip
        return
    app = create_app(challenge, cache_seconds=cache_seconds, cache_pages=cache_pages, warm=warm,
                     settle_heap=True)  # fmt: skip
    uvicorn.run(app, host=host, port=port, log_level="warning", **uvicorn_options())
