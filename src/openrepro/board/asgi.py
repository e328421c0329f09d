"""The board as an importable ASGI app, for servers that start several worker processes:

    OPENREPRO_HOME=/srv/icml2026 uvicorn openrepro.board.asgi:app --workers 4

Each worker process imports this module and opens the challenge named by ``OPENREPRO_HOME``
(else the folder found from the current directory) with its own store connection pool; the
store is the only shared state, so PostgreSQL is the right store behind several workers.
Each worker builds every page ahead in the background (its own cache). Migrations are not run
here: run ``openrepro db upgrade`` once before starting the workers.
"""

from __future__ import annotations

from fastapi import FastAPI

from openrepro.board.web import create_app
from openrepro.challenge import open_challenge

__all__ = ["make_app"]


def make_app() -> FastAPI:
    """A board app for the challenge of ``OPENREPRO_HOME`` (or the current folder)."""
    return create_app(open_challenge(migrate=False), warm=True, settle_heap=True)


def __getattr__(name: str) -> FastAPI:
    """``openrepro.board.asgi:app`` opens the challenge when a server asks for it, not on import."""
    if name == "app":
        return make_app()
    raise AttributeError(name)
