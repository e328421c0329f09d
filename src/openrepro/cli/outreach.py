"""`openrepro outreach`: messages to authors about confirmed findings, and their responses."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from openrepro.cli._common import FormatOption, OutputFormat, console, open_from, print_json
from openrepro.outcomes import author_responses
from openrepro.outreach import (
    MessageView,
    draft_messages,
    list_messages,
    record_response,
    send_messages,
)

__all__ = ["app"]

app = typer.Typer(help="Write to authors about confirmed findings.", no_args_is_help=True)


class ResponseChoice(StrEnum):
    agrees = "agrees"
    disputes = "disputes"
    fixed = "fixed"
    no_answer = "no-answer"


def _messages_table(rows: list[MessageView], title: str) -> None:
    table = Table(title=title, title_justify="left")
    for column in ("id", "claim", "status", "to", "file"):
        table.add_column(column, overflow="fold")
    for m in rows:
        table.add_row(str(m.id), escape(m.claim), m.status, escape(", ".join(m.recipients)),
                      escape(m.eml_path or ""))  # fmt: skip
    console.print(table)


@app.command("draft")
def draft(
    ctx: typer.Context,
    claim: str | None = typer.Option(None, "--claim", help="One finding (default: all)."),
    to: list[str] | None = typer.Option(
        None, "--to", help="Recipient (repeatable; default: addresses in the paper's authors)."
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Folder of the .eml files (default: <challenge>/outreach)."
    ),
    redraft: bool = typer.Option(False, "--redraft", help="Replace existing unsent drafts."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Draft a message per confirmed finding (claim, verdicts, logbook links, every evidence
    pointer) and export each as a .eml file."""
    rows = draft_messages(open_from(ctx), claim=claim, to=to, out_dir=out, redraft=redraft)
    if fmt is OutputFormat.json:
        print_json(rows)
        return
    _messages_table(rows, f"{len(rows)} messages")


@app.command("ls")
def ls(
    ctx: typer.Context,
    status: str | None = typer.Option(None, "--status", help="draft or sent."),
    responses: bool = typer.Option(False, "--responses", help="List author responses instead."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """List messages (or, with --responses, the authors' newest response per finding)."""
    challenge = open_from(ctx)
    if responses:
        found = author_responses(challenge)
        if fmt is OutputFormat.json:
            print_json(found)
            return
        table = Table(title=f"{len(found)} author responses", title_justify="left")
        for column in ("claim", "response", "version", "note"):
            table.add_column(column, overflow="fold")
        for r in found:
            table.add_row(escape(r.claim), r.response, r.version or "", escape(r.note))
        console.print(table)
        return
    rows = list_messages(challenge, status=status)
    if fmt is OutputFormat.json:
        print_json(rows)
        return
    _messages_table(rows, f"{len(rows)} messages")


@app.command("send")
def send(
    ctx: typer.Context,
    ids: list[int] | None = typer.Argument(None, help="Message ids (default: every draft)."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Send drafts through the configured SMTP server (settings smtp_*)."""
    rows = send_messages(open_from(ctx), ids or None)
    if fmt is OutputFormat.json:
        print_json(rows)
        return
    console.print(f"sent {len(rows)} messages")


@app.command("record")
def record(
    ctx: typer.Context,
    claim: str = typer.Argument(..., help="Claim id of the finding, e.g. abc123/C2."),
    response: ResponseChoice = typer.Argument(..., help="What the authors answered."),
    version: str | None = typer.Option(
        None, "--version", help="Version of the paper that fixed it (with `fixed`)."
    ),
    note: str = typer.Option("", "--note", help="A short note (their words, a link)."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Record the authors' response to a finding (shown in stats and the frozen dataset)."""
    view = record_response(open_from(ctx), claim, response.value, version=version, note=note)
    if fmt is OutputFormat.json:
        print_json(view)
        return
    console.print(f"{escape(view.claim)}: {view.response}")
