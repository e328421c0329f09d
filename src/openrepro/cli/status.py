"""`openrepro status`: my logbooks, each claim's verdict, rule, bindings and re-check state."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape
from rich.table import Table

from openrepro.cli._common import FormatOption, OutputFormat, console, open_from, print_json
from openrepro.errors import ConfigError

if TYPE_CHECKING:  # the client and the workspace load when the command runs, not for --help
    from openrepro.remote import ParticipantStatus

__all__ = ["status"]


def _server(given: str | None) -> str | None:
    """--server, else the board the current workspace was pulled from, else the one board a
    token is stored for."""
    from openrepro.remote import normalise_server, stored_servers
    from openrepro.workspace import workspace_server

    if given:
        return normalise_server(given)
    found = workspace_server(Path.cwd())
    if found:
        return normalise_server(found)
    servers = stored_servers()
    return servers[0] if len(servers) == 1 else None


def status(
    ctx: typer.Context,
    server: str | None = typer.Option(
        None,
        "--server",
        help="The board (default: the one this workspace was pulled from, else the only board "
        "you registered with).",
    ),
    handle: str | None = typer.Option(
        None, "--as", help="In a local challenge folder: whose logbooks (a handle)."
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Your logbooks (the newest revision per paper) with each claim's verdict, the rule that
    decided it, how its quantities are bound and its re-check state: from a board with your
    stored token, or from a local challenge folder with --as."""
    if handle and not server:
        from openrepro.board.status import participant_status

        report = participant_status(open_from(ctx), handle)
    else:
        target = _server(server)
        if target is None:
            raise ConfigError(
                "which board? pass --server URL (or run this in a workspace pulled with "
                "`pull --server`), or --as HANDLE in a local challenge folder"
            )
        from openrepro.remote import remote_status, require_credential

        report = remote_status(target, token=require_credential(target).token)
    if fmt is OutputFormat.json:
        print_json(report)
        return
    render_status(report)


def render_status(report: ParticipantStatus) -> None:
    where = f" on {escape(report.server)}" if report.server else ""
    if not report.logbooks:
        console.print(f"{escape(report.handle)}{where}: no logbooks yet")
        return
    console.print(f"{escape(report.handle)}{where}: {len(report.logbooks)} logbook(s)")
    if report.note:
        console.print(f"[yellow]{escape(report.note)}[/yellow]")
    for book in report.logbooks:
        table = Table(title=f"logbook {book.logbook_id} for {escape(book.paper)} (revision "
                      f"{escape(book.revision[:12])})", title_justify="left")  # fmt: skip
        for column in ("claim", "verdict", "rule", "bindings", "re-check"):
            table.add_column(column, overflow="fold")
        for claim in book.claims:
            verdict = claim.verdict or "not judged yet"
            notes = []
            if claim.verdict and claim.judge_value and claim.judge_value != claim.verdict:
                notes.append(f"judge: {claim.judge_value}")
            if claim.below_minimum:  # how strong the evidence is, and why it does not count
                notes.append(f"{claim.provenance}, below the minimum "
                             f"{report.min_provenance_verified or '?'}: not counted")  # fmt: skip
            elif claim.verdict == "verified" and claim.provenance:
                notes.append(claim.provenance)
            if notes:
                verdict += f" ({'; '.join(notes)})"
            if claim.flags:
                verdict += f" [{', '.join(claim.flags)}]"
            bound = "; ".join(
                f"{q.quantity}: {q.how}" + (f", {len(q.values)} values" if q.values else "")
                for q in claim.bindings
            )  # fmt: skip
            table.add_row(escape(claim.claim), escape(verdict), escape(claim.rule or "no check"),
                          escape(bound or "-"), claim.recheck or "-")  # fmt: skip
        console.print(table)
