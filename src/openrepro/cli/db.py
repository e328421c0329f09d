"""`openrepro db`: inspect and migrate the store."""

from __future__ import annotations

import typer

from openrepro.challenge import open_challenge
from openrepro.cli._common import FormatOption, OutputFormat, console, print_json
from openrepro.config import load_settings
from openrepro.store import Store, head_revision

__all__ = ["app"]

app = typer.Typer(help="Inspect and migrate the challenge's database.", no_args_is_help=True)


@app.command("upgrade")
def upgrade(ctx: typer.Context) -> None:
    """Apply pending migrations to the challenge's database."""
    challenge = open_challenge((ctx.obj or {}).get("dir"))
    try:
        console.print(
            f"{challenge.store.safe_url} at revision {challenge.store.current_revision()}"
        )
    finally:
        challenge.close()


@app.command("status")
def status(ctx: typer.Context, fmt: OutputFormat = FormatOption) -> None:
    """Show the database URL (password hidden), dialect, migration revision and the newest."""
    settings = load_settings((ctx.obj or {}).get("dir"))
    store = Store(settings.resolved_database_url())
    try:
        info = {
            "url": store.safe_url,
            "dialect": store.dialect,
            "revision": store.current_revision(),
            "head": head_revision(),
        }
    finally:
        store.dispose()
    if fmt is OutputFormat.json:
        print_json(info)
    else:
        for key, value in info.items():
            console.print(f"{key}: {value}")
