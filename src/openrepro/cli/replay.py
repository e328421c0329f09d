"""`openrepro replay`: re-run a logbook's recorded runs and record whether they match."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from openrepro.cli._common import FormatOption, OutputFormat, console, open_from, print_json
from openrepro.cli.claims import AddressOption, EngineOption
from openrepro.engine import Engine, RayOptions, replay_logbooks_ray, require_ray
from openrepro.provenance.replay import ReplayReport, replay_all, replay_as_jobs, replay_logbook

__all__ = ["replay"]


def _show(report: ReplayReport) -> None:
    table = Table(title=f"logbook {report.logbook_id}" + (f", claim {report.claim}"
                  if report.claim else ""), title_justify="left")  # fmt: skip
    for column in ("run", "status", "level", "seconds", "details"):
        table.add_column(column, overflow="fold")
    for result in report.results:
        details = result.details
        why = "; ".join(
            str(x)
            for x in [details.get("problem"), details.get("not_computed"),
                      *details.get("metric_problems", []),
                      *details.get("file_problems", [])[:3],
                      *details.get("output_lines_missing", [])[:3]]
            if x
        )  # fmt: skip
        files = details.get("files_reproduced") or {}
        if files:
            why = "; ".join(x for x in [why, f"files replayed: {', '.join(sorted(files))}"] if x)
        table.add_row(escape(result.run_id), result.status, result.level,
                      f"{result.seconds:.1f}", escape(why))  # fmt: skip
    console.print(table)
    console.print(f"sandbox: {report.isolation}")
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}")


def replay(
    ctx: typer.Context,
    logbook: int | None = typer.Argument(None, help="Logbook id (see `logbook ls`)."),
    claim: str | None = typer.Option(
        None, "--claim", help="Only the runs behind this claim (`C1` or `paper/C1`)."
    ),
    budget_seconds: float | None = typer.Option(
        None, "--budget-seconds", help="Seconds for this logbook (default: replay_budget_seconds)."
    ),
    memory_mb: int | None = typer.Option(
        None, "--memory-mb", help="Memory limit per run in MiB (default: replay_memory_mb)."
    ),
    code: Path | None = typer.Option(
        None,
        "--code",
        help="A checkout of the participant's code (e.g. their repository at "
        "the logbook's commit), copied into the sandbox under the logbook's own files.",
    ),
    all_: bool = typer.Option(False, "--all", help="Every logbook (newest revision each)."),
    budget_per_logbook: float | None = typer.Option(
        None, "--budget-per-logbook", help="With --all: seconds per logbook; longer runs queue."
    ),
    budget: float | None = typer.Option(
        None, "--budget", help="With --all: seconds in all; runs past it queue."
    ),
    jobs: bool = typer.Option(
        False,
        "--jobs",
        help="With --all: one local job per logbook through the jobs backend "
        "(priced in the credit ledger of --as); results are stored as the jobs finish.",
    ),
    handle: str | None = typer.Option(
        None,
        "--as",
        help="With --jobs: the ledger account (default: jobs_participant, else `organizers`).",
    ),
    engine: Engine = EngineOption,
    address: str | None = AddressOption,
    fmt: OutputFormat = FormatOption,
) -> None:
    """Re-run the recorded runs behind a logbook's evidence in a sandbox (bubblewrap: read-only
    system, no home, no network, only a fresh copy of the logbook writable; CPU, memory,
    process, file-size and wall-clock limits), compare outputs, metrics and files with the
    record, and store the result: a matched replay makes the evidence `replayed`."""
    if (logbook is None) == (not all_):
        raise typer.BadParameter("name one logbook, or pass --all")
    if (engine is Engine.ray or budget is not None) and not all_:
        raise typer.BadParameter("--engine ray and --budget go with --all")
    if code is not None and all_:
        raise typer.BadParameter("--code goes with one logbook, not --all")
    if jobs and (not all_ or engine is Engine.ray):
        raise typer.BadParameter("--jobs goes with --all, without --engine ray")
    if address and engine is not Engine.ray:
        raise typer.BadParameter("--address needs --engine ray")
    if engine is Engine.ray:
        require_ray()  # a clear error before anything is opened
    challenge = open_from(ctx)
    if all_:
        per = budget_per_logbook or challenge.settings.replay_budget_seconds
        if jobs:
            launched = replay_as_jobs(challenge, budget_per_logbook=per, budget=budget,
                                      memory_mb=memory_mb, handle=handle)  # fmt: skip
            if fmt is OutputFormat.json:
                print_json(launched)
                return
            for job in launched:
                what = job.command[job.command.index("replay") :][:2]
                console.print(f"job {escape(job.id)}: {escape(' '.join(what))} ({job.status})")
            console.print("results are stored as the jobs finish: `openrepro jobs ls`")
            return
        if engine is Engine.ray:
            reports = replay_logbooks_ray(challenge, budget_per_logbook=per, budget=budget,
                                          memory_mb=memory_mb,
                                          options=RayOptions(address=address))  # fmt: skip
        else:
            reports = replay_all(challenge, budget_per_logbook=per, budget=budget,
                                 memory_mb=memory_mb)  # fmt: skip
    else:
        assert logbook is not None
        reports = [replay_logbook(challenge, logbook, claim=claim, budget_seconds=budget_seconds,
                                  memory_mb=memory_mb, code=code)]  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(reports if all_ else reports[0])
        return
    for report in reports:
        _show(report)
