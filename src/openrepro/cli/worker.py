"""`openrepro worker`: a judge worker over the challenge's judge queue (``openrepro serve``
starts one; more run anywhere that reaches the same database)."""

from __future__ import annotations

import signal
import threading
from types import FrameType

import typer
from rich.markup import escape

from openrepro.cli._common import FormatOption, OutputFormat, err_console, open_from, print_json
from openrepro.judge.judges import Judges
from openrepro.judge.worker import run_worker
from openrepro.store.judge_queue import Claimed

__all__ = ["worker"]


def worker(
    ctx: typer.Context,
    no_llm: bool = typer.Option(
        False,
        "--no-llm",
        help="Deterministic path only: claims that need the judge model are inconclusive.",
    ),
    until_empty: bool = typer.Option(
        False, "--until-empty", help="Stop once nothing is queued (default: wait for more)."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No line per judged logbook."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Judge what the judge queue holds: submissions, changed checks, review answers and
    re-check decisions, each logbook once per change, until stopped (Ctrl-C or SIGTERM finish
    the logbook at hand first)."""
    challenge = open_from(ctx)
    judges = Judges.from_options(challenge.settings, challenge.store, no_llm=no_llm)
    ctx.call_on_close(judges.close)
    stop = threading.Event()

    def _stop(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
        signal.signal(signal.SIGINT, _stop)

    def _line(claimed: Claimed, error: str) -> None:
        if quiet or fmt is OutputFormat.json:
            return
        what = f"failed: {escape(error)}" if error else "judged"
        err_console.print(f"logbook {claimed.logbook_id}: {len(claimed.item_ids)} item(s) {what}")

    if fmt is OutputFormat.table and not quiet:
        err_console.print(f"judge worker on {escape(challenge.store.safe_url)} (Ctrl-C stops)")
    report = run_worker(challenge, judges, stop=stop, until_empty=until_empty, progress=_line)
    if fmt is OutputFormat.json:
        print_json(report)
    elif not quiet:
        err_console.print(f"{report.logbooks} logbook(s), {report.items} item(s), "
                          f"{report.failures} failure(s) in {report.seconds:.1f}s")  # fmt: skip
