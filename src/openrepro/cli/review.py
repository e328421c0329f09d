"""`openrepro review`: human review tasks (image pairs) on a small blinded page."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from openrepro.cli._common import FormatOption, OutputFormat, console, print_json
from openrepro.review import check_task, create_task, export_task, serve_task

__all__ = ["app"]

app = typer.Typer(help="Human review tasks: judge image pairs, blinded.", no_args_is_help=True)


@app.command("create")
def create(
    folder: Path = typer.Argument(..., help="Task folder to create.", file_okay=False),
    a_dir: Path = typer.Option(..., "--a", help="Folder of the A images.", file_okay=False),
    b_dir: Path = typer.Option(..., "--b", help="Folder of the B images (same file names)."),
    question: str = typer.Option(..., "--question", help="What the reviewer answers."),
    option: list[str] | None = typer.Option(
        None, "--option", help="An answer (repeatable; default: left, right, same)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the order and of the sides."),
    repeat: float = typer.Option(
        0.1, "--repeat", help="Share of items shown twice, for self-agreement."
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Create a task from image pairs matched by file name."""
    task = create_task(folder, a_dir, b_dir, question=question, options=option, seed=seed,
                       repeat_share=repeat)  # fmt: skip
    if fmt is OutputFormat.json:
        print_json({"task": task.name, "folder": str(folder), "items": len(task.items)})
        return
    console.print(f"task {escape(task.name)}: {len(task.items)} pairs in {escape(str(folder))}")


@app.command("serve")
def serve(
    folder: Path = typer.Argument(..., help="Task folder.", file_okay=False),
    reviewer: str = typer.Option(..., "--reviewer", help="Who answers (recorded with answers)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8765, "--port", help="Port to listen on."),
) -> None:
    """Serve the review page: one item at a time, keyboard shortcuts, resumable."""
    console.print(f"reviewing as {escape(reviewer)} on http://{host}:{port}/ (Ctrl+C to stop)")
    serve_task(folder, reviewer, host=host, port=port)


@app.command("check")
def check(
    folder: Path = typer.Argument(..., help="Task folder.", file_okay=False),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Report self-agreement, Cohen's kappa per pair of reviewers and Krippendorff's alpha."""
    report = check_task(folder)
    if fmt is OutputFormat.json:
        print_json(report)
        return

    def num(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.3f}"

    console.print(f"task {escape(report.task)}: {report.items} items, {report.answers} answers")
    for r in report.reviewers:
        console.print(f"- {escape(r.reviewer)}: {r.answers}/{r.slots} answered, "
                      f"self-agreement {num(r.self_agreement)} on {r.repeats} repeats")  # fmt: skip
    for p in report.pairs:
        console.print(f"- {escape(' vs '.join(p.reviewers))}: {p.items} items, agreement "
                      f"{num(p.percent)}, Cohen's kappa {num(p.kappa)}")  # fmt: skip
    console.print(f"Krippendorff's alpha (nominal): {num(report.alpha)}")
    for problem in report.problems:
        console.print(f"[red]problem:[/] {escape(problem)}")


@app.command("export")
def export(
    folder: Path = typer.Argument(..., help="Task folder.", file_okay=False),
    logbook: Path = typer.Option(..., "--logbook", help="Logbook folder to attach them to."),
) -> None:
    """Attach the answers and their summary to a logbook folder as human-judged evidence."""
    for path in export_task(folder, logbook):
        console.print(f"wrote {escape(str(path))}")
