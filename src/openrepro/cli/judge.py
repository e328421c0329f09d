"""`openrepro judge`: per-claim verdicts from checked evidence, and their evaluation.

``openrepro judge`` is a group whose default subcommand is ``run``: ``openrepro judge 3`` and
``openrepro judge --all`` mean ``openrepro judge run ...``; ``openrepro judge eval LABELS``
compares stored verdicts with gold labels.
"""

from __future__ import annotations

import time
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer
import typer.core
from rich.markup import escape
from rich.progress import TextColumn
from rich.table import Table

from openrepro.cli._common import (
    FormatOption,
    OutputFormat,
    console,
    open_from,
    print_json,
    progress_bar,
)
from openrepro.cli.claims import AddressOption, EngineOption, usage_line
from openrepro.engine import Engine, RayOptions, judge_logbooks_ray, require_ray
from openrepro.errors import LLMUnavailableError
from openrepro.judge.evaluate import evaluate, read_labels, render_table
from openrepro.judge.judges import Judges
from openrepro.judge.service import VerdictRow, judge_logbooks
from openrepro.llm import Usage

__all__ = ["DefaultRunGroup", "app", "judge", "judge_eval"]


class DefaultRunGroup(typer.core.TyperGroup):
    """A group that runs ``run`` when the first argument names no subcommand (nor asks for
    help): ``judge 3`` is ``judge run 3``, while ``judge --help`` lists the subcommands."""

    default_command = "run"

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        first = args[0] if args else None
        if first is not None and first not in self.commands and first not in ctx.help_option_names:
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    cls=DefaultRunGroup,
    help="Judge claims in logbooks (`judge [LOGBOOK...]` = `judge run`), or evaluate verdicts.",
    no_args_is_help=True,
)


@app.command("run")
def judge(
    ctx: typer.Context,
    logbooks: list[int] | None = typer.Argument(None, help="Logbook ids (see `logbook ls`)."),
    paper: str | None = typer.Option(None, "--paper", help="Every logbook of this paper."),
    all_: bool = typer.Option(False, "--all", help="Every logbook (newest revision each)."),
    no_llm: bool = typer.Option(
        False,
        "--no-llm",
        help="Deterministic path only: logbooks that did not log the claim's "
        "metric get `inconclusive` instead of an LLM extraction.",
    ),
    model: str | None = typer.Option(
        None,
        "--model",
        help="Judge model (default: setting llm_model; a .gguf path when embedded).",
    ),
    judges: str | None = typer.Option(
        None,
        "--judges",
        help="A panel of judge models, comma-separated: on the LLM path their verdicts must "
        "agree, else the claim is inconclusive.",
    ),
    engine: Engine = EngineOption,
    address: str | None = AddressOption,
    fmt: OutputFormat = FormatOption,
) -> None:
    """Judge every claim in the chosen logbooks; claims already judged under the same judge
    config are skipped, so a re-run resumes."""
    if not logbooks and not paper and not all_:
        raise typer.BadParameter("name logbooks, or pass --paper or --all")
    if address and engine is not Engine.ray:
        raise typer.BadParameter("--address needs --engine ray")
    if engine is Engine.ray:
        require_ray()  # a clear error before anything is opened
    challenge = open_from(ctx)
    # the judges are opened by the first claim that needs them: a run whose claims are all
    # decided by their checks needs none
    names = judges.split(",") if judges else []
    panel = Judges.from_options(challenge.settings, challenge.store, model=model, panel=names,
                                no_llm=no_llm)  # fmt: skip
    ctx.call_on_close(panel.close)
    live = Usage()  # tokens spent by the Ray workers, as their tasks finish
    columns = TextColumn("{task.fields[claims]} claims, {task.fields[rate]} claims/s, "
                         "{task.fields[tokens]} tokens")  # fmt: skip
    started = time.perf_counter()
    with progress_bar("judging", fmt, columns) as progress:
        task = progress.add_task("judge", total=None, claims=0, rate="0.0", tokens=0)

        def start(total: int) -> None:
            progress.update(task, total=total)

        def advance(rows: list[VerdictRow]) -> None:
            fields = progress.tasks[0].fields
            done = fields["claims"] + len(rows)
            rate = done / max(time.perf_counter() - started, 1e-9)
            tokens = panel.usage.total_tokens + live.total_tokens
            progress.update(task, advance=1, claims=done, rate=f"{rate:.1f}", tokens=tokens)

        if engine is Engine.ray:
            report = judge_logbooks_ray(
                challenge,
                panel,
                logbook_ids=logbooks or None,
                paper=paper,
                progress=advance,
                usage=live,
                options=RayOptions(address=address),
                on_targets=start,
            )
        else:
            try:
                report = judge_logbooks(
                    challenge,
                    panel,
                    logbook_ids=logbooks or None,
                    paper=paper,
                    progress=advance,
                    on_targets=start,
                )
            except LLMUnavailableError as exc:
                raise LLMUnavailableError(
                    f"a claim needs the judge model, which cannot be opened ({exc}); the "
                    "logbooks judged before it are stored. Install or configure a model, or "
                    "pass --no-llm to judge such claims inconclusive without one"
                ) from exc
    if fmt is OutputFormat.json:
        print_json(report)
        return
    table = Table(title=f"{report.judged} verdicts (config {report.judge_config})",
                  title_justify="left")  # fmt: skip
    for column in ("logbook", "claim", "verdict", "rule", "path", "flags", "why"):
        table.add_column(column, overflow="fold")
    for row in report.verdicts:
        if row.skipped:
            continue
        table.add_row(str(row.logbook_id), escape(row.claim_id), row.verdict, row.rule, row.path,
                      ", ".join(row.flags), escape(row.rationale))  # fmt: skip
    console.print(table)
    if report.judge_errors:
        console.print(
            f"[red]{report.judge_errors} judge errors[/red]: the judge's own code failed on "
            "these claims (flag judge_error, rule J1; logged with the traceback); the logbooks "
            "are not at fault"
        )
    skipped = len(report.verdicts) - report.judged
    if skipped:
        console.print(f"{skipped} claims already judged under this config (skipped)")
    console.print(usage_line(report.usage))


class EvalFormat(StrEnum):
    md = "md"
    json = "json"


@app.command("eval")
def judge_eval(
    ctx: typer.Context,
    labels: Path = typer.Argument(..., help="Gold labels, JSON Lines (see `judge.evaluate`)."),
    config: str | None = typer.Option(
        None, "--config", help="Judge config to evaluate (default: the latest verdicts')."
    ),
    fmt: EvalFormat = typer.Option(
        EvalFormat.md, "--format", "-f", help="Markdown tables (md) or JSON for agents (json)."
    ),
) -> None:
    """Compare stored verdicts with gold labels: confusion matrix, per-class and macro-F1,
    share decided without an LLM, tokens and seconds per verdict."""
    challenge = open_from(ctx)
    report = evaluate(challenge, read_labels(labels), judge_config=config)
    if fmt is EvalFormat.json:
        print_json(report.model_dump() | {"disagreements": report.disagreements})
        return
    typer.echo(render_table(report), nl=False)
