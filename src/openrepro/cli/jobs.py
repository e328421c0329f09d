"""`openrepro jobs`: compute jobs (local or HF Jobs) paid from a credit ledger."""

from __future__ import annotations

import typer
from rich.markup import escape

from openrepro.challenge import ChallengeContext
from openrepro.cli._common import (
    FormatOption,
    OutputFormat,
    console,
    err_console,
    open_from,
    print_json,
)
from openrepro.jobs import (
    Balance,
    JobView,
    balance,
    cancel_job,
    follow_logs,
    get_job,
    grant_credit,
    list_jobs,
    read_logs,
    reconcile,
    run_job,
    run_uv_job,
    wait_job,
)

__all__ = ["app"]

app = typer.Typer(help="Compute jobs (local or Hugging Face Jobs) and the credit ledger.")

AsOption = typer.Option(
    None, "--as", help="Participant handle (default: the `jobs_participant` setting)."
)
BackendOption = typer.Option(None, "--backend", help="`local` or `hf` (default: jobs_backend).")
FlavorOption = typer.Option(None, "--flavor", help="Hardware flavor (default: jobs_flavor).")
TimeoutOption = typer.Option(
    None, "--timeout", help="Seconds before the job is killed (default: jobs_timeout_s)."
)
ClaimOption = typer.Option(None, "--claim", help="Claim the job is for: `C2` or `PAPER/C2`.")
PaperOption = typer.Option(None, "--paper", help="Paper venue id the job is for.")


def _open(ctx: typer.Context) -> ChallengeContext:
    challenge = open_from(ctx)
    report = reconcile(challenge)
    for line in report.settled:
        err_console.print(f"reconciled: {escape(line)} settled")
    for warning in report.warnings:
        err_console.print(f"warning: {escape(warning)}")
    return challenge


def _show(job: JobView) -> None:
    cost = "-" if job.cost_usd is None else f"${job.cost_usd:.4f}"
    if job.cost_usd is not None and job.cost_is_estimate:
        cost += " (estimate)"
    console.print(f"[bold]{escape(job.id)}[/] {job.status}  {escape(' '.join(job.command))}")
    console.print(
        f"  {job.backend} {escape(job.flavor)} at ${job.price_per_hour_usd:g}/h, timeout "
        f"{job.timeout_s:g} s; reserved ${job.reserved_usd:.4f}, cost {cost}"
    )
    who = escape(job.participant or "-")
    target = escape("/".join(x for x in (job.paper, job.claim) if x) or "-")
    console.print(f"  participant {who}, paper/claim {target}")
    if job.exit_code is not None or job.error:
        console.print(f"  exit code {job.exit_code}, {escape(job.error or 'ok')}")
    if job.url:
        console.print(f"  {escape(job.url)}")
    if job.log_path:
        console.print(f"  log {escape(job.log_path)}")


def _balance(found: Balance) -> None:
    console.print(
        f"{escape(found.participant)}: available ${found.available_usd:.4f} (budget "
        f"${found.budget_usd:.2f} + granted ${found.granted_usd:.2f} - reserved "
        f"${found.reserved_usd:.4f} - spent ${found.spent_usd:.4f})"
    )


@app.command("run", context_settings={"ignore_unknown_options": True})
def run(
    ctx: typer.Context,
    command: list[str] = typer.Argument(..., help="The command, after `--`."),
    backend: str | None = BackendOption,
    flavor: str | None = FlavorOption,
    timeout: float | None = TimeoutOption,
    claim: str | None = ClaimOption,
    paper: str | None = PaperOption,
    handle: str | None = AsOption,
    fmt: OutputFormat = FormatOption,
) -> None:
    """Launch `-- CMD` after reserving price x timeout of the participant's credit."""
    job = run_job(
        _open(ctx), command, handle=handle, backend=backend, flavor=flavor, timeout_s=timeout,
        paper=paper, claim=claim,
    )  # fmt: skip
    print_json(job) if fmt is OutputFormat.json else _show(job)


@app.command("uv", context_settings={"ignore_unknown_options": True})
def uv(
    ctx: typer.Context,
    script: str = typer.Argument(..., help="A uv script (inline dependencies), path or URL."),
    script_args: list[str] | None = typer.Argument(None, help="Arguments of the script."),
    backend: str | None = BackendOption,
    flavor: str | None = FlavorOption,
    timeout: float | None = TimeoutOption,
    claim: str | None = ClaimOption,
    paper: str | None = PaperOption,
    handle: str | None = AsOption,
    fmt: OutputFormat = FormatOption,
) -> None:
    """Launch a uv script (`uv run SCRIPT`; HF Jobs' run_uv_job on `hf`)."""
    job = run_uv_job(
        _open(ctx), script, script_args or [], handle=handle, backend=backend, flavor=flavor,
        timeout_s=timeout, paper=paper, claim=claim,
    )  # fmt: skip
    print_json(job) if fmt is OutputFormat.json else _show(job)


@app.command("ls")
def ls(
    ctx: typer.Context,
    handle: str | None = typer.Option(None, "--as", "--participant", help="Only this handle."),
    paper: str | None = PaperOption,
    fmt: OutputFormat = FormatOption,
) -> None:
    """List jobs, newest first."""
    jobs = list_jobs(_open(ctx), participant=handle, paper=paper)
    if fmt is OutputFormat.json:
        print_json(jobs)
        return
    if not jobs:
        console.print("no jobs")
    for job in jobs:
        cost = "-" if job.cost_usd is None else f"${job.cost_usd:.4f}"
        console.print(
            f"{escape(job.id):<12} {job.status:<10} {escape(job.participant or '-'):<16} "
            f"{escape(job.flavor):<12} {cost:>10}  {escape(' '.join(job.command))[:60]}"
        )


@app.command("show")
def show(
    ctx: typer.Context,
    job_id: str = typer.Argument(..., help="Job id: local:12, hf:13 or hf:<hub id>."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Show one job."""
    job = get_job(_open(ctx), job_id)
    print_json(job) if fmt is OutputFormat.json else _show(job)


@app.command("logs")
def logs(
    ctx: typer.Context,
    job_id: str = typer.Argument(..., help="Job id."),
    follow: bool = typer.Option(False, "--follow", "-f", help="Stream until the job ends."),
) -> None:
    """Print a job's output (stdout and stderr)."""
    challenge = _open(ctx)
    if not follow:
        typer.echo(read_logs(challenge, job_id), nl=False)
        return
    for chunk in follow_logs(challenge, job_id):
        typer.echo(chunk, nl=False)


@app.command("cancel")
def cancel(
    ctx: typer.Context,
    job_id: str = typer.Argument(..., help="Job id."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Stop a job (locally: its whole process group); its reservation is settled."""
    job = cancel_job(_open(ctx), job_id)
    print_json(job) if fmt is OutputFormat.json else _show(job)


@app.command("wait")
def wait(
    ctx: typer.Context,
    job_id: str = typer.Argument(..., help="Job id."),
    timeout: float | None = typer.Option(None, "--timeout", help="Give up after this many s."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Wait until a job has ended; exit 1 if it did not complete."""
    job = wait_job(_open(ctx), job_id, timeout_s=timeout)
    print_json(job) if fmt is OutputFormat.json else _show(job)
    if job.status != "completed":
        raise typer.Exit(1)


@app.command("grant")
def grant(
    ctx: typer.Context,
    handle: str = typer.Argument(..., help="Participant handle."),
    amount: float = typer.Argument(..., help="USD to add to their credit."),
    reason: str = typer.Option(..., "--reason", help="Why (kept in the ledger)."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Organizers: grant a participant more credit."""
    found = grant_credit(_open(ctx), handle, amount, reason=reason)
    print_json(found) if fmt is OutputFormat.json else _balance(found)


@app.command("balance")
def balance_cmd(
    ctx: typer.Context,
    handle: str | None = typer.Argument(None, help="Participant (default: jobs_participant)."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Show a participant's credit: budget, granted, reserved, spent, available."""
    challenge = _open(ctx)
    found = balance(challenge, handle or challenge.settings.jobs_participant)
    print_json(found) if fmt is OutputFormat.json else _balance(found)


@app.command("reconcile")
def reconcile_cmd(ctx: typer.Context, fmt: OutputFormat = FormatOption) -> None:
    """Settle jobs whose supervisor died or that ended on HF Jobs."""
    report = reconcile(open_from(ctx))
    if fmt is OutputFormat.json:
        print_json(report)
        return
    console.print(f"settled {len(report.settled)}, updated {len(report.updated)}")
    for warning in report.warnings:
        err_console.print(f"warning: {escape(warning)}")
