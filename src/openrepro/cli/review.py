"""`openrepro review`: human review tasks (image pairs) on a small blinded page."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from openrepro.cli._common import FormatOption, OutputFormat, console, open_from, print_json
from openrepro.errors import ConfigError
from openrepro.review import (
    AnswerLog,
    StoredAnswerLog,
    add_reviewer,
    check_task,
    create_stored_task,
    create_task,
    export_task,
    load_task,
)

__all__ = ["app"]

app = typer.Typer(help="Human review tasks: judge image pairs, blinded.", no_args_is_help=True)


@app.command("create")
def create(
    ctx: typer.Context,
    folder: Path = typer.Argument(..., help="Task folder to create.", file_okay=False),
    a_dir: Path | None = typer.Option(None, "--a", help="Folder of the A images.", file_okay=False),
    b_dir: Path | None = typer.Option(None, "--b", help="Folder of the B images (same names)."),
    question: str = typer.Option("", "--question", help="What the reviewer answers."),
    option: list[str] | None = typer.Option(
        None, "--option", help="An answer (repeatable; default: left, right, same)."
    ),
    claim: str = typer.Option(
        "", "--claim", help="From a stored logbook: the claim <paper>/<key> (a human check)."
    ),
    logbook: int | None = typer.Option(None, "--logbook", help="From a stored logbook: its id."),
    pattern: str = typer.Option(
        "*", "--pattern", help="Produced files of the method to judge (glob on their paths)."
    ),
    baseline: str = typer.Option(
        "", "--baseline", help="Produced files of the baseline (glob; pairs by file name)."
    ),
    reviewer: list[str] | None = typer.Option(
        None, "--reviewer", help="A registered reviewer's handle (repeatable)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the order and of the sides."),
    repeat: float = typer.Option(
        0.1, "--repeat", help="Share of items shown twice, for self-agreement."
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Create a task: from image pairs matched by file name (--a, --b), or for a claim's human
    check from the files a stored logbook's recorded runs produced (--claim, --logbook)."""
    if claim or logbook is not None:
        if not claim or logbook is None:
            raise ConfigError("--claim and --logbook go together")
        challenge = open_from(ctx)
        made = create_stored_task(challenge, claim, logbook, folder, pattern=pattern,
                                  baseline=baseline, reviewers=reviewer or [], seed=seed,
                                  repeat_share=repeat)  # fmt: skip
        if fmt is OutputFormat.json:
            print_json(made)
            return
        roles = ", ".join(f"{h} ({r})" for h, r in made.reviewers.items())
        console.print(f"task {escape(made.name)}: {made.items} items for {escape(made.claim)} "
                      f"in {escape(str(folder))}; reviewers {escape(roles)}")  # fmt: skip
        return
    if a_dir is None or b_dir is None or not question:
        raise ConfigError("give --a, --b and --question (or --claim and --logbook)")
    task = create_task(folder, a_dir, b_dir, question=question, options=option, seed=seed,
                       repeat_share=repeat)  # fmt: skip
    if fmt is OutputFormat.json:
        print_json({"task": task.name, "folder": str(folder), "items": len(task.items)})
        return
    console.print(f"task {escape(task.name)}: {len(task.items)} pairs in {escape(str(folder))}")


@app.command("invite")
def invite(
    ctx: typer.Context,
    folder: Path = typer.Argument(..., help="Folder of a task made from a stored logbook."),
    reviewer: str = typer.Option(..., "--reviewer", help="The registered reviewer's handle."),
) -> None:
    """Add a registered reviewer to a stored task (their role follows from who they are)."""
    role = add_reviewer(open_from(ctx), folder, reviewer)
    console.print(f"{escape(reviewer)} reviews as {role}")


@app.command("serve")
def serve(
    ctx: typer.Context,
    folder: Path = typer.Argument(..., help="Task folder.", file_okay=False),
    reviewer: str = typer.Option(..., "--reviewer", help="Who answers (recorded with answers)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8765, "--port", help="Port to listen on."),
) -> None:
    """Serve the review page: one item at a time, keyboard shortcuts, resumable."""
    from openrepro.review.server import serve_task  # FastAPI: only this command needs it

    task = load_task(folder)
    log: AnswerLog | None = None
    if task.stored_id is not None:  # answers go to the store (and to answers.csv)
        log = StoredAnswerLog(open_from(ctx), task, reviewer)
    console.print(f"reviewing as {escape(reviewer)} on http://{host}:{port}/ (Ctrl+C to stop)")
    serve_task(folder, reviewer, host=host, port=port, log=log)


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
