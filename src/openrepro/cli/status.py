"""`openrepro status`: my logbooks, each claim's verdict, rule, bindings and re-check state."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape
from rich.table import Table

from openrepro.cli._common import (
    FormatOption,
    OutputFormat,
    console,
    err_console,
    open_from,
    print_json,
)
from openrepro.errors import ConfigError

if TYPE_CHECKING:  # the client, the store and the workspace load when the command runs
    from openrepro.remote import ParticipantStatus
    from openrepro.store.judge_queue import QueueStats

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
    wait: bool = typer.Option(
        False, "--wait", help="Wait until every claim of your logbooks is judged (or failed)."
    ),
    timeout: float = typer.Option(
        300.0, "--timeout", min=0, help="With --wait: give up after this many seconds (exit 1)."
    ),
    queue: bool = typer.Option(
        False,
        "--queue",
        help="Organizers: the judge queue (depth, oldest item, throughput, failures) instead.",
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Your logbooks (the newest revision per paper) with each claim's verdict and when it was
    given, its place in the judge queue (queued, judging, judged, failed), the rule that
    decided it, how its quantities are bound and its re-check state: from a board with your
    stored token, or from a local challenge folder with --as."""
    if queue:
        stats = _queue(ctx, server, handle)
        if fmt is OutputFormat.json:
            print_json(stats)
        else:
            render_queue(stats)
        return
    report = _report(ctx, server, handle)
    deadline = time.monotonic() + timeout
    while wait and not all(book.settled for book in report.logbooks):
        if time.monotonic() >= deadline:
            if fmt is OutputFormat.json:
                print_json(report)
            else:
                render_status(report)
            err_console.print(f"not every claim was judged within {timeout:g}s")
            raise typer.Exit(1)
        time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
        report = _report(ctx, server, handle)
    if fmt is OutputFormat.json:
        print_json(report)
        return
    render_status(report)


def _report(ctx: typer.Context, server: str | None, handle: str | None) -> ParticipantStatus:
    from openrepro.remote import remote_status, require_credential

    if handle and not server:
        from openrepro.board.status import participant_status

        return participant_status(open_from(ctx), handle)
    target = _server(server)
    if target is None:
        raise ConfigError(
            "which board? pass --server URL (or run this in a workspace pulled with "
            "`pull --server`), or --as HANDLE in a local challenge folder"
        )
    return remote_status(target, token=require_credential(target).token)


def _queue(ctx: typer.Context, server: str | None, handle: str | None) -> QueueStats:
    """The queue of the board at --server (an organizer's token), else of the local challenge."""
    from openrepro.remote import normalise_server, remote_queue, require_credential
    from openrepro.store.judge_queue import queue_stats

    target = normalise_server(server) if server else None
    if target is None and handle is None:
        try:
            challenge = open_from(ctx)
        except ConfigError:
            target = _server(None)
            if target is None:
                raise
        else:
            with challenge.store.session() as session:
                return queue_stats(session, challenge.challenge_id)
    if target is None:
        challenge = open_from(ctx)
        with challenge.store.session() as session:
            return queue_stats(session, challenge.challenge_id)
    return remote_queue(target, token=require_credential(target).token)


def render_queue(stats: QueueStats) -> None:
    oldest = stats.oldest_queued_at.isoformat(timespec="seconds") if stats.oldest_queued_at else "-"
    console.print(f"judge queue: {stats.queued} queued, {stats.judging} judging, {stats.done} done,"
                  f" {stats.failed} failed; oldest queued {oldest}; "
                  f"{stats.per_minute:g} judged/min over {stats.window_minutes} min; "
                  f"judge version {escape(stats.judge_version or '-')}")  # fmt: skip
    for failure in stats.failures:
        console.print(f"  failed: logbook {failure.logbook_id} {escape(failure.claim)} after "
                      f"{failure.attempts} attempt(s): {escape(failure.error)}")  # fmt: skip


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
        if book.queue_position is not None:
            console.print(f"logbook {book.logbook_id}: position {book.queue_position} in the "
                          "judge queue")  # fmt: skip
        for column in ("claim", "verdict", "judge queue", "rule", "bindings", "re-check"):
            table.add_column(column, overflow="fold")
        for claim in book.claims:
            verdict = claim.verdict or "not judged yet"
            state = claim.queue or "-"
            if claim.queue == "judged" and claim.judged_at is not None:
                state = f"judged {claim.judged_at.isoformat(timespec='seconds')}"
            elif claim.queue == "failed":
                state = f"failed: {claim.queue_error}"
            elif claim.queue in ("queued", "judging") and claim.verdict:
                state += " (a new verdict is due)"
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
            table.add_row(escape(claim.claim), escape(verdict), escape(state),
                          escape(claim.rule or "no check"),
                          escape(bound or "-"), claim.recheck or "-")  # fmt: skip
        console.print(table)
