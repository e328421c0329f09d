"""`openrepro logbook`: list, show and render submitted logbooks."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from openrepro.cli._common import FormatOption, OutputFormat, console, open_from, print_json
from openrepro.errors import LogbookError
from openrepro.logbooks.service import list_logbooks, load_logbook, locator
from openrepro.logbooks.site import build_site
from openrepro.logbooks.tables import read_value

__all__ = ["app"]

app = typer.Typer(help="List, show and render submitted logbooks.", no_args_is_help=True)


@app.command("ls")
def ls(
    ctx: typer.Context,
    paper: str | None = typer.Option(None, "--paper", help="Only this paper's logbooks."),
    participant: str | None = typer.Option(None, "--participant", help="Only this handle's."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """List logbooks (every revision)."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        rows = list_logbooks(session, challenge.challenge_id, paper=paper, participant=participant)
    if fmt is OutputFormat.json:
        print_json(rows)
        return
    table = Table(title=f"{len(rows)} logbooks", title_justify="left")
    for column in ("id", "paper", "participant", "revision", "format", "runs", "metrics"):
        table.add_column(column, overflow="fold")
    for row in rows:
        runs = f"{row.runs}" + (f" ({row.failed_runs} failed)" if row.failed_runs else "")
        table.add_row(str(row.id), escape(row.paper_id), escape(row.participant), row.revision,
                      row.format, runs, str(row.metrics))  # fmt: skip
    console.print(table)


@app.command("show")
def show(
    ctx: typer.Context,
    logbook_id: int = typer.Argument(..., help="Logbook id (see `logbook ls`)."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Show a logbook's normalised record: runs, metrics, files; testimony kept apart."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        record = load_logbook(session, challenge.challenge_id, logbook_id)
    if fmt is OutputFormat.json:
        print_json(record)
        return
    console.print(
        f"[bold]{escape(record.title or '(untitled)')}[/] for {escape(record.paper_id or '?')}"
    )
    for run in record.runs:
        command = escape(" ".join(run.command))
        console.print(
            f"  run {escape(run.id)}: `{command}` exit {run.exit_code} in {run.duration_s}s, "
            f"{len(run.produced)} files"
        )
    keys = sorted({m.key for m in record.metrics})
    for key in keys:
        values = [m.value for m in record.metrics if m.key == key]
        console.print(f"  metric {escape(key)}: {len(values)} values, last {values[-1]:g}")
    for table in record.tables:
        where = table.path or table.cell
        console.print(
            f"  table {escape(table.table[:16])} ({table.source} {escape(where)}): "
            f"{table.rows} rows, columns {escape(', '.join(table.columns[:8]))}"
        )
    for side in record.side_files:
        console.print(f"  side file {escape(side.path)} ({side.kind}): {escape(side.summary)}")
    for warning in record.warnings:
        console.print(f"  [yellow]read with a warning[/]: {escape(warning)}")
    console.print(f"  {len(record.testimony)} testimony cells (not evidence)")


@app.command("value")
def value(
    ctx: typer.Context,
    logbook_id: int = typer.Argument(..., help="Logbook id (see `logbook ls`)."),
    table: str = typer.Argument(
        ...,
        help="Table: a file's sha256 (or a prefix), a cell id, "
        "or <run id>#<n> (see `logbook show`).",
    ),
    row: int = typer.Argument(..., help="Data row, from 1."),
    column: str = typer.Argument(..., help="Column (header name)."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Read one table cell of a logbook by its pointer, as the judge does (by code)."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        record = load_logbook(session, challenge.challenge_id, logbook_id)
    matches = [t.table for t in record.tables if t.table == table or
               (len(table) >= 8 and t.table.startswith(table))]  # fmt: skip
    if len(matches) != 1:
        raise LogbookError(f"logbook {logbook_id}: {len(matches)} tables match {table!r}")
    found = read_value(record.tables, record.runs, record.pages, matches[0], row, column,
                       locator(challenge.settings.resolved_files_dir()))  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(found)
        return
    console.print(escape(found.text))


@app.command("render")
def render(
    ctx: typer.Context,
    logbook_id: int = typer.Argument(..., help="Logbook id (see `logbook ls`)."),
    out: Path = typer.Option(..., "--out", "-o", help="Folder for index.html and its images."),
) -> None:
    """Render a logbook to a static, sanitised page (no scripts, strict CSP)."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        record = load_logbook(session, challenge.challenge_id, logbook_id)
    page = build_site(record, locator(challenge.settings.resolved_files_dir()), out)
    console.print(f"wrote {escape(str(page))}")


@app.command("publish")
def publish(
    bundle: Path = typer.Argument(..., help="An openrepro bundle folder (manifest.json)."),
    space: str = typer.Option(..., "--space", help="Space id to publish to, owner/name."),
    trace: Path | None = typer.Option(
        None, "--trace", help="The agent's trace (JSONL): goes to the <name>-traces Dataset."
    ),
    private: bool = typer.Option(False, "--private", help="Create the repos private."),
    endpoint: str | None = typer.Option(
        None, "--endpoint", help="Hub endpoint (default: huggingface_hub's, or HF_ENDPOINT)."
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Publish a bundle as a static Space (like `trackio logbook publish`); token from HF_TOKEN
    or `hf auth login`."""
    from openrepro.logbooks.publish import publish_bundle

    report = publish_bundle(bundle, space, endpoint=endpoint, private=private, trace=trace)
    if fmt is OutputFormat.json:
        print_json(report)
        return
    console.print(f"published {escape(report.space_url)} ({len(report.files)} files)")
    if report.dataset_id:
        console.print(f"trace in dataset {escape(report.dataset_id)}")
