"""`openrepro submit`: validate and store a logbook, in a local challenge or on a board."""

from __future__ import annotations

import tempfile
from pathlib import Path

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from openrepro.cli._common import (
    FormatOption,
    OutputFormat,
    console,
    err_console,
    open_from,
    print_json,
)
from openrepro.errors import ConfigError
from openrepro.intake import BoundSubmitReport
from openrepro.intake import submit as submit_logbook
from openrepro.workspace import workspace_server

__all__ = ["render_submit", "submit"]

#: Uploads from this size on show a progress bar.
PROGRESS_BYTES = 1 << 20


def submit(
    ctx: typer.Context,
    source: str = typer.Argument(
        ...,
        help="Logbook folder, bundle folder, an archive (.tar.gz, .tgz, .tar, .zip), or a "
        "logbook published as a Space: space:owner/name, hf:owner/name or "
        "https://huggingface.co/spaces/owner/name (a bare owner/name is a local path).",
    ),
    handle: str | None = typer.Option(
        None, "--as", help="Participant handle (default: the bundle's `participant`)."
    ),
    paper: str | None = typer.Option(
        None,
        "--paper",
        help="The paper's venue id (or arXiv id), when the logbook does not name "
        "it or names it ambiguously; wins over what the logbook says.",
    ),
    server: str | None = typer.Option(
        None,
        "--server",
        help="Upload to this board (default: the board a workspace was pulled from with "
        "`pull --server`; none: the local challenge folder).",
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Validate, store (content-addressed) and summarise a logbook: evidence vs testimony, and
    how each claim's quantities bind (exact key, evidence map, name match, unbound). In a
    workspace pulled from a board, the logbook is uploaded there with your stored token."""
    folder = Path(source)
    target = server or (workspace_server(folder) if folder.is_dir() else None)
    if target:  # the board's client (httpx) loads only for an upload
        from openrepro.remote import normalise_server

        report = _upload(normalise_server(target), folder, handle, paper, fmt)
    else:
        report = submit_logbook(open_from(ctx), source, handle, paper=paper)
    if fmt is OutputFormat.json:
        print_json(report)
        return
    render_submit(report)


def _upload(
    server: str, source: Path, handle: str | None, paper: str | None, fmt: OutputFormat
) -> BoundSubmitReport:
    """Pack ``source`` (a folder; an archive goes as it is) and upload it to ``server``."""
    from openrepro.remote import pack_workspace, require_credential, submit_remote

    token = require_credential(server).token
    if not source.exists():
        raise ConfigError(f"{source}: no such folder or archive (a board takes a workspace "
                          "folder or an archive of it)")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="openrepro-upload-") as tmp:
        archive = pack_workspace(source, Path(tmp)) if source.is_dir() else source
        size = archive.stat().st_size
        bar = Progress(
            TextColumn(f"uploading to {escape(server)}"), BarColumn(), DownloadColumn(),
            TransferSpeedColumn(), TimeRemainingColumn(), console=err_console, transient=True,
            disable=fmt is OutputFormat.json or size < PROGRESS_BYTES,
        )  # fmt: skip
        with bar:
            task = bar.add_task("upload", total=size)
            return submit_remote(server, archive, token=token, handle=handle, paper=paper,
                                 advance=lambda n: bar.advance(task, n))  # fmt: skip


def render_submit(report: BoundSubmitReport) -> None:
    """The submit report for people: the same lines for a local and an uploaded logbook."""
    state = {"new": "stored", "new-revision": "stored as a new revision", "unchanged": "unchanged"}
    console.print(
        f"logbook {report.logbook_id} ({report.format}) for {escape(report.paper_id)} by "
        f"{escape(report.participant)}: {state[report.status]} (revision {report.revision}, "
        f"{report.files} files, {report.bytes} bytes)"
    )
    console.print(f"paper linked by {escape(report.linked_by)}")
    console.print("[bold]evidence[/] (what the judge checks):")
    for run in report.evidence.runs:
        console.print(
            f"  run {escape(str(run['id']))}: `{escape(str(run['command']))}` "
            f"exit {run['exit_code']}"
        )
    for key, count in sorted(report.evidence.metrics.items()):
        console.print(f"  metric {escape(key)}: {count} values")
    for path in report.evidence.artifacts:
        console.print(f"  file {escape(path)}")
    for table in report.evidence.tables:
        where = table["path"] or table["cell"]
        columns = table["columns"]
        width = len(columns) if isinstance(columns, list) else 0
        console.print(
            f"  table {escape(str(table['table'])[:16])} ({table['source']} {escape(str(where))}):"
            f" {table['rows']} rows, {width} columns"
        )
    for side in report.side_files:
        console.print(f"  side file {escape(str(side['path']))}: {escape(str(side['summary']))}")
    if report.proposals:
        console.print("[bold]proposed checks[/] (checks.json):")
    for outcome in report.proposals:
        if outcome.status == "refused":
            console.print(f"  {escape(outcome.claim)}: refused: {escape(outcome.reason)}")
            continue
        use = ("used for your logbooks, provisional until confirmed" if outcome.used
               else "stored; the claim has an organizer's or a confirmed check")  # fmt: skip
        if outcome.status == "confirmed":
            use = "confirmed (an equivalent proposal of another team): the claim's check"
        console.print(f"  {escape(outcome.claim)}: proposal {outcome.proposal_id} "
                      f"{outcome.status}: {escape(outcome.check)} ({use})")  # fmt: skip
    if report.bindings:
        console.print("[bold]bindings[/] (what each claim's check will be judged on):")
    for claim in report.bindings:
        if not claim.check:
            console.print(f"  {escape(claim.claim)}: no check yet: inconclusive whatever is "
                          "logged (propose one in checks.json)")  # fmt: skip
            continue
        mine = {"proposal": " [your proposal: provisional]",
                "llm": " [a model's draft: provisional until an independent drafter agrees]",
                }.get(claim.origin, "")  # fmt: skip
        console.print(f"  {escape(claim.claim)}: {escape(claim.check)}{escape(mine)}")
        for q in claim.quantities:
            shown = f"{q.how}: {q.reason}" if q.reason else q.how
            n = len(q.values)
            tally = f", {n} value{'s' if n != 1 else ''}" if n else ""
            console.print(f"    {escape(q.quantity)}: {escape(shown)}{tally}")
    console.print("[bold]testimony[/] (the participant's own words, never evidence):")
    for line in report.testimony:
        console.print(f"  {escape(line)}")
    for warning in report.warnings:
        err_console.print(f"warning: {escape(warning)}")
    if report.queue_position is not None:
        console.print(f"[bold]judge queue[/]: position {report.queue_position} (judged by the "
                      "board's workers; `openrepro status --wait` shows the verdicts)")  # fmt: skip
    else:
        console.print("[bold]judge queue[/]: nothing waits (every claim is judged under its "
                      "current check; `openrepro status` shows the verdicts)")  # fmt: skip
