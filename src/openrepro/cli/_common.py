"""Shared CLI plumbing: the challenge folder option, output formats, consoles."""

from __future__ import annotations

import getpass
import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

if TYPE_CHECKING:  # the store loads when a command opens the challenge, not for --help
    from openrepro.challenge import ChallengeContext

__all__ = [
    "FormatOption",
    "OutputFormat",
    "console",
    "default_editor",
    "err_console",
    "open_from",
    "print_json",
    "progress_bar",
]

console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


class OutputFormat(StrEnum):
    table = "table"
    json = "json"


FormatOption = typer.Option(
    OutputFormat.table, "--format", "-f", help="Output for people (table) or agents (json)."
)


def _plain(data: Any) -> Any:
    if isinstance(data, BaseModel):
        return data.model_dump(mode="json")
    if isinstance(data, list):
        return [_plain(item) for item in data]
    if isinstance(data, dict):
        return {key: _plain(value) for key, value in data.items()}
    return data


def print_json(data: Any) -> None:
    """Write ``data`` (pydantic models, lists, dicts) as JSON on stdout, nothing else."""
    typer.echo(json.dumps(_plain(data), ensure_ascii=False, indent=2))


def open_from(ctx: typer.Context) -> ChallengeContext:
    """Open the challenge named by the global ``--dir`` option (or found from the cwd)."""
    from openrepro.challenge import open_challenge

    directory: Path | None = (ctx.obj or {}).get("dir")
    challenge = open_challenge(directory)
    ctx.call_on_close(challenge.close)
    return challenge


def progress_bar(label: str, fmt: OutputFormat, *extra: ProgressColumn) -> Progress:
    """A progress bar on stderr (so stdout stays clean for JSON), hidden with ``--format json``."""
    return Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        *extra,
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
        disable=fmt is OutputFormat.json,
    )


def default_editor() -> str:
    """Who an organizer's edit is recorded as when ``--by`` is not given: the local user."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "organizer"
