"""`openrepro pull`: a ready workspace for one paper."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from openrepro.cli._common import FormatOption, OutputFormat, console, open_from, print_json
from openrepro.remote import normalise_server
from openrepro.workspace import fetch_workspace, pull_paper, write_workspace

__all__ = ["pull"]


def pull(
    ctx: typer.Context,
    paper_id: str = typer.Argument(..., help="Venue id of the paper."),
    directory: Path | None = typer.Option(
        None,
        "--dir",
        "-d",
        help="Workspace folder to create (default: ./<paper id>).",
        file_okay=False,
    ),
    server: str | None = typer.Option(
        None,
        "--server",
        help="Pull from a board's API (e.g. https://repro.example.org) instead of a local "
        "challenge folder; the workspace remembers it (`submit` and `status` go there).",
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Write PAPER.md, CLAIMS.md, claims.json, INSTRUCTIONS.md, AGENTS.md and a Trackio logbook
    with one planned page per claim."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in paper_id)
    if server:
        server = normalise_server(server)
        payload = fetch_workspace(server, paper_id)
        report = write_workspace(payload, directory or Path(safe), server=server)
    else:
        report = pull_paper(open_from(ctx), paper_id, directory or Path(safe))
    if fmt is OutputFormat.json:
        print_json(report)
        return
    console.print(f"workspace for [bold]{escape(paper_id)}[/] in {escape(report.directory)}/")
    for name in report.files:
        if not name.startswith(".trackio/logbook/") or name.endswith(("page.md", "logbook.json")):
            console.print(f"  {escape(name)}")
    console.print(f"{len(report.claims)} claims, one planned logbook page each")
    console.print(f"next: cd {escape(report.directory)} && read AGENTS.md")
    if server:
        console.print(
            f"submit with `openrepro submit {escape(report.directory)}` (to {escape(server)})"
        )
