"""`openrepro init`: create a challenge folder."""

from __future__ import annotations

from pathlib import Path

import typer

from openrepro.challenge import init_challenge
from openrepro.cli._common import console

__all__ = ["init"]


def init(
    name: str = typer.Argument(
        ..., help="Challenge name; also the folder created (unless --path)."
    ),
    venue: str = typer.Option("", "--venue", help="Venue id, e.g. ICML.cc/2026/Conference."),
    title: str = typer.Option("", "--title", help="Title shown on the board (default: NAME)."),
    path: Path | None = typer.Option(
        None, "--path", help="Folder to create (default: ./NAME).", file_okay=False
    ),
    database_url: str | None = typer.Option(
        None,
        "--database-url",
        help="Store URL written to openrepro.toml (default: SQLite in the folder). "
        "Prefer OPENREPRO_DATABASE_URL for URLs with passwords.",
    ),
) -> None:
    """Create a challenge folder (openrepro.toml + database); refuses to overwrite one."""
    folder = path or Path(name)
    challenge = init_challenge(folder, name, venue=venue, title=title, database_url=database_url)
    try:
        console.print(
            f"created challenge [bold]{name}[/] in {folder}/ (store: {challenge.store.safe_url})"
        )
        console.print(f"next: cd {folder} && openrepro papers import SOURCE")
    finally:
        challenge.close()
