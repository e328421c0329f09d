"""`openrepro demo`: a fresh mini-challenge of a fictional venue, end to end, offline."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TaskID
from rich.table import Table

from openrepro.cli._common import (
    FormatOption,
    OutputFormat,
    console,
    err_console,
    print_json,
    progress_bar,
)
from openrepro.cli.claims import usage_line
from openrepro.cli.stats import print_stats
from openrepro.demo import DemoProgress, DemoReport, run_demo

__all__ = ["demo"]


class _Bar(DemoProgress):
    """One rich bar per stage, on stderr."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task: TaskID | None = None

    def stage(self, name: str, total: int) -> None:
        if self.task is not None:
            self.progress.update(self.task, visible=False)
        self.task = self.progress.add_task(name, total=max(total, 1), detail="")
        if not self.progress.disable:
            err_console.print(f"[bold]>[/] {escape(name)}")

    def step(self, detail: str) -> None:
        if self.task is not None:
            self.progress.update(self.task, advance=1, detail=detail)
        if detail and not self.progress.disable:
            err_console.print(f"  {escape(detail)}")


def _mark(right: bool) -> str:
    return "[green]✓[/]" if right else "[red]✗[/]"


def _final_screen(report: DemoReport) -> None:
    console.rule(f"[bold]openrepro demo[/] ({'quick' if report.quick else 'full'})")
    console.print(
        f"{report.papers} fictional papers; the embedded model proposed {report.extracted} "
        f"grounded claims ({usage_line(report.extraction.usage)}); the organizer review made "
        f"{sum(n.action != 'kept' for n in report.review)} changes "
        f"({', '.join(f'{n.claim} {n.action}' for n in report.review)})"
    )
    print_stats(report.stats)
    checks = Table(title="Checks: what code decides (drafted by the rules from each claim's "
                   "quote when stored; set by the organizer where the rules cannot)")  # fmt: skip
    for col in ("Claim", "Relation"):
        checks.add_column(col, no_wrap=True)
    checks.add_column("Check")
    checks.add_column("From")
    for c in report.checks:
        origin = (f"organizer (claims check set): {c.reason}" if c.origin == "organizer"
                  else f"{c.origin} {c.rule}".strip())  # fmt: skip
        checks.add_row(escape(c.claim), f"{_mark(c.as_wanted)} {c.relation or '-'}",
                       escape(c.words), escape(origin))  # fmt: skip
    console.print(checks)
    table = Table(title="Verdicts against the demo's known truth")
    for col in ("Who", "Claim", "Truth", "Judge", "Final"):
        table.add_column(col, no_wrap=True)
    table.add_column("Attempt")
    for v in report.verdicts:
        table.add_row(
            escape(v.handle), escape(v.claim), v.expected,
            f"{_mark(v.judge_right)} {v.judge} {v.rule}",
            f"{_mark(v.final_right)} {v.final}", escape(v.scenario),
        )  # fmt: skip
    console.print(table)
    console.print(
        "[bold]How code decided[/] (the rule, the check in words, the values bound at their "
        "pointers, the test's outcome; and what an equality-only comparison of the same logbook "
        "would say, a logged value against the claim's number, which the judge never does):"
    )
    for v in report.verdicts:
        console.print(
            f"  {_mark(v.judge_right)} {escape(v.handle)} on {escape(v.claim)}: {v.judge} "
            f"{escape(v.rule)} ({escape(v.rule_name)}; {v.path} path)"
        )
        if v.check:
            console.print(f"      check:    {escape(v.check)}")
            console.print(f"      values:   {escape('; '.join(v.values) or '-')}")
            console.print(f"      outcome:  {escape(v.detail)}")
        console.print(
            f"      equality: {_mark(v.equality == v.expected)} {v.equality} "
            f"{escape(v.equality_rule)} ({escape(v.equality_detail)})"
        )
    for v in report.verdicts:
        if v.check and v.judge_right and v.judge == "verified" and v.equality != "verified":
            console.print(
                f"{escape(v.claim)} ({escape(v.handle)}): the check [bold]{escape(v.check)}[/] "
                f"{v.judge} it ({escape(v.rule)}: {escape(v.detail)}); an equality-only "
                f"comparison would have said [bold]{v.equality}[/] ({escape(v.equality_rule)}: "
                f"{escape(v.equality_detail)})"
            )
    total = len(report.verdicts)
    by_path: dict[str, list[bool]] = {}
    for v in report.verdicts:
        by_path.setdefault(v.path, []).append(v.judge_right)
    paths = ", ".join(f"{p} {sum(r)}/{len(r)}" for p, r in sorted(by_path.items()))
    console.print(
        f"judge: {report.judge_right}/{total} verdicts match the known truth ({paths}; "
        f"{report.judge_calls} LLM calls); after the re-check and the organizer's decisions: "
        f"{report.final_right}/{total}"
    )
    hostile = [v for v in report.verdicts if v.hostile]
    console.print(
        "hostile logbooks: "
        + ", ".join(
            f"{escape(v.handle)} on {escape(v.claim)}: {v.final} {v.flags}" for v in hostile
        )
    )
    for note in report.recheck:
        console.print(f"re-check {escape(note.claim)}: {note.decision} ({escape(note.reason)})")
    console.print(
        "credit: "
        + ", ".join(
            f"{b.participant} spent ${b.spent_usd:.4f}, reserved ${b.reserved_usd:.4f}, "
            f"available ${b.available_usd:.2f}"
            for b in report.balances
        )
    )
    if (h := report.human_review) is not None:
        skipped = f" [yellow]skipped: {escape(h.skipped)}[/]" if h.skipped else ""
        console.print(f"human review {escape(h.claim)}: {h.answered} answers in Chromium, "
                      f"{h.verdict} [{h.rule}] {h.provenance}{skipped}")  # fmt: skip
    seconds = ", ".join(f"{k} {v:.0f}s" for k, v in report.seconds.items())
    console.print(f"time: {seconds}")
    console.print("[bold]next[/]:")
    console.print(f"  static board:   {escape(report.site)}/index.html")
    console.print(
        f"  frozen dataset: {escape(report.frozen.out)} ({len(report.frozen.files)} files)"
    )
    console.print(f"  live board:     openrepro serve --dir {escape(report.folder)}")
    console.print(f"  the CLI:        openrepro --dir {escape(report.folder)} stats")
    console.print(f"  workspaces:     {escape(report.folder)}/work/<participant>/<paper>")


def demo(
    ctx: typer.Context,
    directory: Path | None = typer.Option(
        None,
        "--dir",
        "-C",
        help="Folder of the demo challenge (default: ./openrepro-demo); an earlier demo's "
        "folder is replaced, any other non-empty folder is refused.",
        file_okay=False,
    ),
    serve: bool = typer.Option(
        False, "--serve", help="Afterwards, serve the live board on 127.0.0.1 (Ctrl-C stops)."
    ),
    port: int = typer.Option(8000, help="Port of the live board with --serve."),
    quick: bool = typer.Option(
        False, "--quick", help="A reduced run for CI: 4 papers, 8 logbooks, every stage."
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Create a fresh challenge of a fictional venue and run it end to end: claims extracted by
    the embedded model and reviewed, real experiments by scripted participants (some as jobs on
    the credit ledger), the judge, the re-check queue, outcomes, a frozen dataset and the static
    board; the final screen scores the judge against the demo's known truth."""
    root = (ctx.obj or {}).get("dir") if ctx.obj else None
    folder = directory or root or Path("openrepro-demo")
    with progress_bar("{task.description}", fmt, SpinnerColumn()) as progress:
        report = run_demo(folder, quick=quick, progress=_Bar(progress))
    if fmt is OutputFormat.json:
        print_json(report)
    else:
        _final_screen(report)
    if serve:
        import uvicorn

        from openrepro.board import create_app
        from openrepro.board.server import uvicorn_options
        from openrepro.challenge import open_challenge

        challenge = open_challenge(folder)
        try:
            app = create_app(challenge)
            err_console.print(f"board on http://127.0.0.1:{port}/  (Ctrl-C stops)")
            uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", **uvicorn_options())
        finally:
            challenge.close()
