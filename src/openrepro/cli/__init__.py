"""The ``openrepro`` command line: a thin Typer layer, one module per noun.

A command's module is imported when that command runs (or shows its own ``--help``), never when
the command line starts: ``openrepro --help`` lists every command from :data:`COMMANDS` (a test
holds each summary to the command's own help), so an agent calling ``openrepro status`` dozens
of times pays for ``status`` alone.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup
from typer.main import get_command_from_info, get_group_from_info
from typer.models import CommandInfo, TyperInfo

from openrepro.errors import OpenReproError

__all__ = ["COMMANDS", "app", "main"]

# Name -> the summary ``openrepro --help`` shows, in the order it shows them.
COMMANDS: dict[str, str] = {
    "init": "Create a challenge folder (openrepro.toml + database); refuses to overwrite one.",
    "demo": "Create a fresh challenge of a fictional venue and run it end to end.",
    "pull": "Write PAPER.md, CLAIMS.md, claims.json, INSTRUCTIONS.md, AGENTS.md and a Trackio "
    "logbook with one planned page per claim.",
    "submit": "Validate, store (content-addressed) and summarise a logbook.",
    "stats": "The seeds' outcome table (count and % of examined papers), totals, claim consensus, "
    "verdicts per provenance level.",
    "status": "Your logbooks (the newest revision per paper) with each claim's verdict.",
    "serve": "Serve the board (home, papers, paper, logbook, participant, leaderboard) and the "
    "JSON API (docs at /api/docs).",
    "worker": "Judge what the judge queue holds: submissions, changed checks, review answers and "
    "re-check decisions, each logbook once per change, until stopped.",
    "freeze": "Freeze the challenge: write its whole record (Parquet + JSON Lines, a dataset "
    "card, SHA256SUMS) to OUT and make it read-only; or reopen it with --reopen.",
    "replay": "Re-run the recorded runs behind a logbook's evidence in a sandbox.",
    "papers": "Import, list, show and search the challenge's papers.",
    "claims": "Extract, list, show and curate the papers' claims.",
    "check": "Propose checks for a workspace's claims (written to checks.json, read by submit).",
    "logbook": "List, show and render submitted logbooks.",
    "judge": "Judge claims in logbooks (`judge [LOGBOOK...]` = `judge run`), or evaluate verdicts.",
    "verdicts": "Current verdicts and organizer overrides.",
    "participants": "Participants, organizers and their API tokens.",
    "jobs": "Compute jobs (local or Hugging Face Jobs) and the credit ledger.",
    "recheck": "Re-check claimed falsifications before they stand.",
    "outreach": "Write to authors about confirmed findings.",
    "review": "Human review tasks: judge image pairs, blinded.",
    "site": "The board as a static site.",
    "db": "Inspect and migrate the challenge's database.",
}


def _load(name: str) -> Callable[..., Any] | typer.Typer:
    """The command function or Typer app behind ``name``, its module imported now."""
    match name:
        case "init":
            from openrepro.cli.init import init

            return init
        case "demo":
            from openrepro.cli.demo import demo

            return demo
        case "pull":
            from openrepro.cli.pull import pull

            return pull
        case "submit":
            from openrepro.cli.submit import submit

            return submit
        case "stats":
            from openrepro.cli.stats import stats

            return stats
        case "status":
            from openrepro.cli.status import status

            return status
        case "serve":
            from openrepro.cli.serve import serve

            return serve
        case "freeze":
            from openrepro.cli.freeze import freeze

            return freeze
        case "replay":
            from openrepro.cli.replay import replay

            return replay
        case "papers":
            from openrepro.cli import papers

            return papers.app
        case "claims":
            from openrepro.cli import claims

            return claims.app
        case "check":
            from openrepro.cli import checks

            return checks.propose_app
        case "logbook":
            from openrepro.cli import logbook

            return logbook.app
        case "judge":
            from openrepro.cli import judge

            return judge.app
        case "verdicts":
            from openrepro.cli import verdicts

            return verdicts.app
        case "participants":
            from openrepro.cli import participants

            return participants.app
        case "jobs":
            from openrepro.cli import jobs

            return jobs.app
        case "recheck":
            from openrepro.cli import recheck

            return recheck.app
        case "outreach":
            from openrepro.cli import outreach

            return outreach.app
        case "review":
            from openrepro.cli import review

            return review.app
        case "site":
            from openrepro.cli import site

            return site.app
        case "db":
            from openrepro.cli import db

            return db.app
        case "worker":
            from openrepro.cli.worker import worker

            return worker
    raise KeyError(name)


class _Listed(TyperCommand):
    """A command as the root's listing shows it, before its module is imported."""


class _LazyGroup(TyperGroup):
    """The root group: holds a :class:`_Listed` stand-in per command and builds the real command
    (as ``app.command``/``app.add_typer`` would have) the first time it is asked for one, except
    while printing its own help, which needs only names and summaries."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for name, summary in COMMANDS.items():
            self.commands[name] = _Listed(name=name, help=summary)
        self._listing = False

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = self.commands.get(cmd_name)
        if isinstance(command, _Listed) and not self._listing:
            command = self.commands[cmd_name] = self._build(cmd_name)
        return command

    def _build(self, name: str) -> Any:
        target = _load(name)
        if isinstance(target, typer.Typer):
            return get_group_from_info(
                TyperInfo(target, name=name),
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
                suggest_commands=app.suggest_commands,
            )
        return get_command_from_info(
            CommandInfo(name=name, callback=target),
            pretty_exceptions_short=app.pretty_exceptions_short,
            rich_markup_mode=app.rich_markup_mode,
        )

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    name="openrepro",
    help="Run a community, claim-by-claim reproduction challenge of a research conference.",
    cls=_LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from openrepro import __version__

        typer.echo(f"openrepro {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    directory: Path | None = typer.Option(
        None,
        "--dir",
        "-C",
        help="Challenge folder (default: OPENREPRO_HOME, else the current folder or a parent).",
        file_okay=False,
    ),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    ctx.obj = {"dir": directory}


def main() -> None:
    """Entry point: usage errors are Typer's (exit 2); openrepro errors become one clear line."""
    try:
        app()
    except OpenReproError as exc:
        from rich.markup import escape

        from openrepro.cli._common import err_console

        err_console.print(f"[bold red]error:[/] {escape(str(exc))}")
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        from openrepro.cli._common import err_console

        err_console.print("interrupted")
        sys.exit(130)
