"""`openrepro recheck`: the falsification re-check queue, adversarial re-checks, decisions."""

from __future__ import annotations

from enum import StrEnum

import typer
from rich.markup import escape
from rich.table import Table

from openrepro.cli._common import FormatOption, OutputFormat, console, open_from, print_json
from openrepro.config import Settings
from openrepro.llm import LLMClient, open_client
from openrepro.recheck import decide, get_entry, recheck_queue, run_recheck

__all__ = ["app"]

app = typer.Typer(help="Re-check claimed falsifications before they stand.", no_args_is_help=True)


class DecisionChoice(StrEnum):
    confirmed = "confirmed"
    rejected = "rejected"
    needs_more_evidence = "needs-more-evidence"


@app.command("ls")
def ls(
    ctx: typer.Context,
    status: str | None = typer.Option(
        None, "--status", help="open, checked, confirmed, rejected or needs-more-evidence."
    ),
    reason: str | None = typer.Option(
        None,
        "--reason",
        help="consensus_falsified, consensus_contested, testimony_disagrees, unit_mismatch, "
        "finite_horizon, injection_suspected or testimony_falsification.",
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """List the queue: claims whose consensus is falsified or contested, flagged verdicts, and
    logbooks whose prose claims a falsification."""
    entries = recheck_queue(open_from(ctx), status=status, reason=reason)
    if fmt is OutputFormat.json:
        print_json(entries)
        return
    table = Table(title=f"{len(entries)} claims in the re-check queue", title_justify="left")
    for column in ("claim", "status", "consensus", "reasons", "logbooks", "undermining"):
        table.add_column(column, overflow="fold")
    for e in entries:
        table.add_row(escape(e.claim), e.status, e.consensus, ", ".join(e.reason_codes),
                      " ".join(map(str, e.logbooks)), ", ".join(e.undermining))  # fmt: skip
    console.print(table)


@app.command("show")
def show(
    ctx: typer.Context,
    claim: str = typer.Argument(..., help="Claim id, e.g. abc123/C2."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """One queued claim: why it is queued, every re-check's findings, the decision."""
    entry, runs = get_entry(open_from(ctx), claim)
    if fmt is OutputFormat.json:
        print_json({"entry": entry, "runs": runs})
        return
    console.print(f"[bold]{escape(entry.claim)}[/] ({entry.kind}): {escape(entry.text)}")
    console.print(f"status {entry.status}, consensus {entry.consensus}")
    for r in entry.reasons:
        where = f" (logbook {r.logbook_id}, {escape(r.participant or '')})" if r.logbook_id else ""
        console.print(f"- {r.reason}{where}: {escape(r.detail)}")
    for run in runs:
        console.print(f"\n[bold]re-check {run.id}[/] {run.created_at:%Y-%m-%d %H:%M} "
                      f"{escape(run.model)}: {escape(run.summary)}")  # fmt: skip
        for f in run.findings:
            where = f"logbook {f.logbook_id}: " if f.logbook_id else ""
            console.print(f"  [{f.source}/{f.severity}] {where}{escape(f.message)}")
    if entry.decision is not None:
        d = entry.decision
        console.print(f"\ndecision: {d.decision} by {escape(d.editor)}: {escape(d.reason)}")


def _recheck_settings(settings: Settings, model: str) -> Settings:
    update: dict[str, str] = {}
    if settings.recheck_llm_url:
        update["llm_url"] = settings.recheck_llm_url
    if model or settings.recheck_llm_model:
        update["llm_model"] = model or settings.recheck_llm_model
    return settings.model_copy(update=update)


@app.command("run")
def run(
    ctx: typer.Context,
    claims: list[str] | None = typer.Argument(None, help="Claim ids (default: every open one)."),
    llm: bool = typer.Option(
        False, "--llm", help="Also ask the adversarial LLM (prompt recheck-v1) for objections."
    ),
    model: str = typer.Option(
        "", "--model", help="Model of the adversarial LLM (default: recheck_llm_model)."
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Re-check claims adversarially: code checks (pointers, normalisation, units, scale,
    failed or partial runs, arithmetic), optionally an LLM; findings are stored."""
    challenge = open_from(ctx)
    client: LLMClient | None = None
    if llm:
        client = open_client(_recheck_settings(challenge.settings, model), challenge.store)
        ctx.call_on_close(client.close)
    targets = claims or [e.claim for e in recheck_queue(challenge, status="open")]
    reports = [run_recheck(challenge, claim, client=client) for claim in targets]
    if fmt is OutputFormat.json:
        print_json(reports)
        return
    for report in reports:
        console.print(f"[bold]{escape(report.claim)}[/]: {escape(report.summary)}")
        for f in report.findings:
            if f.severity != "info":
                console.print(f"  [{f.source}/{f.severity}] {escape(f.message)}")


@app.command("decide")
def decide_cmd(
    ctx: typer.Context,
    claim: str = typer.Argument(..., help="Claim id, e.g. abc123/C2."),
    decision: DecisionChoice = typer.Argument(..., help="The organizer's decision."),
    reason: str = typer.Option(..., "--reason", help="Why (kept with the decision)."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Decide a queued claim (organizers): `rejected` turns its falsified verdicts into
    inconclusive (a recheck edit); `confirmed` and `needs-more-evidence` keep them."""
    view = decide(open_from(ctx), claim, decision.value, reason)
    if fmt is OutputFormat.json:
        print_json(view)
        return
    console.print(f"{escape(view.claim)}: {view.decision} ({len(view.verdict_ids)} verdicts "
                  "changed)")  # fmt: skip
