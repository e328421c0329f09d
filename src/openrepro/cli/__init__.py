"""The ``openrepro`` command line: a thin Typer layer, one module per noun."""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.markup import escape

from openrepro import __version__
from openrepro.cli import (
    checks,
    claims,
    db,
    demo,
    freeze,
    init,
    jobs,
    judge,
    logbook,
    outreach,
    papers,
    participants,
    pull,
    recheck,
    replay,
    review,
    serve,
    site,
    stats,
    status,
    submit,
    verdicts,
    worker,
)
from openrepro.cli._common import err_console
from openrepro.errors import OpenReproError

__all__ = ["app", "main"]

app = typer.Typer(
    name="openrepro",
    help="Run a community, claim-by-claim reproduction challenge of a research conference.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
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


app.command("init")(init.init)
app.command("demo")(demo.demo)
app.command("pull")(pull.pull)
app.command("submit")(submit.submit)
app.command("stats")(stats.stats)
app.command("status")(status.status)
app.command("serve")(serve.serve)
app.command("worker")(worker.worker)
app.command("freeze")(freeze.freeze)
app.command("replay")(replay.replay)
app.add_typer(papers.app, name="papers")
app.add_typer(claims.app, name="claims")
app.add_typer(checks.propose_app, name="check")
app.add_typer(logbook.app, name="logbook")
app.add_typer(judge.app, name="judge")
app.add_typer(verdicts.app, name="verdicts")
app.add_typer(participants.app, name="participants")
app.add_typer(jobs.app, name="jobs")
app.add_typer(recheck.app, name="recheck")
app.add_typer(outreach.app, name="outreach")
app.add_typer(review.app, name="review")
app.add_typer(site.app, name="site")
app.add_typer(db.app, name="db")


def main() -> None:
    """Entry point: usage errors are Typer's (exit 2); openrepro errors become one clear line."""
    try:
        app()
    except OpenReproError as exc:
        err_console.print(f"[bold red]error:[/] {escape(str(exc))}")
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
