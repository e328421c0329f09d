"""`openrepro claims`: extract grounded claims with the LLM, list, show and curate them."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.progress import (
    TextColumn,
)
from rich.table import Table

from openrepro import claims as claim_index
from openrepro.claims.drafts import draft_all
from openrepro.claims.extract import pending_count
from openrepro.claims.importer import DEFAULT_THRESHOLD, import_claims
from openrepro.cli import checks as checks_cli
from openrepro.cli._common import (
    FormatOption,
    OutputFormat,
    console,
    default_editor,
    err_console,
    open_from,
    print_json,
    progress_bar,
)
from openrepro.engine import Engine, RayOptions, extract_claims_ray, require_ray
from openrepro.llm import Usage, endpoint_urls, open_client

__all__ = ["AddressOption", "EngineOption", "app", "usage_line"]

app = typer.Typer(help="Extract, list, show and curate the papers' claims.", no_args_is_help=True)
checks_cli.register(app)  # `claims eval`, `claims check ...`


EditorOption = typer.Option(None, "--by", help="Who makes the change (default: your login).")
ReasonOption = typer.Option(..., "--reason", help="Why (kept in the claim's history).")
EngineOption = typer.Option(
    Engine.local,
    "--engine",
    help="Where the work runs: this process (local) or tasks on a Ray cluster (ray; needs "
    "`pip install 'openrepro[ray]'`).",
)
AddressOption = typer.Option(
    None,
    "--address",
    help="Ray cluster to join with --engine ray (`auto`, HOST:6379 or ray://HOST:10001); "
    "default: start a local Ray instance on 127.0.0.1.",
)


def usage_line(usage: Usage) -> str:
    return (
        f"LLM usage: {usage.calls} calls, {usage.cached} cached, "
        f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens, "
        f"{usage.seconds:.1f}s in the model"
    )


@app.command("extract")
def extract(
    ctx: typer.Context,
    papers: list[str] | None = typer.Argument(None, help="Venue ids of the papers."),
    all_: bool = typer.Option(False, "--all", help="Every paper not yet extracted."),
    redo: bool = typer.Option(False, "--redo", help="Extract again papers already done."),
    engine: Engine = EngineOption,
    address: str | None = AddressOption,
    fmt: OutputFormat = FormatOption,
) -> None:
    """Extract 3-8 grounded claims per paper; resumable (done papers are skipped)."""
    if not papers and not all_:
        raise typer.BadParameter("name papers or pass --all")
    if address and engine is not Engine.ray:
        raise typer.BadParameter("--address needs --engine ray")
    if engine is Engine.ray:
        require_ray()  # a clear error before anything is opened
    challenge = open_from(ctx)
    total = pending_count(challenge, papers or None, redo)
    counts = TextColumn("{task.fields[claims]} claims, {task.fields[tokens]} tokens")
    with progress_bar("extracting", fmt, counts) as progress:
        task = progress.add_task("extract", total=total, claims=0, tokens=0)

        def advance(outcome: claim_index.PaperExtraction) -> None:
            task_fields = progress.tasks[0].fields
            progress.update(
                task,
                advance=1,
                claims=task_fields["claims"] + outcome.stored,
                tokens=task_fields["tokens"] + outcome.usage.total_tokens,
            )

        if engine is Engine.ray:
            report = extract_claims_ray(
                challenge, papers or None, redo=redo, progress=advance,
                options=RayOptions(address=address),
            )  # fmt: skip
        else:
            client = open_client(challenge.settings, challenge.store)
            ctx.call_on_close(client.close)
            report = claim_index.extract_claims(
                challenge, client, papers or None, redo=redo, progress=advance
            )
    drafted = None
    if engine is not Engine.ray and endpoint_urls(challenge.settings):
        # with an endpoint, the model drafts the new claims' checks in the same pass (stored
        # as drafted checks, provisional until an independent drafter agrees; resumable)
        drafted = draft_all(challenge.store, challenge.challenge_id, [client],
                            papers=papers or None, editor=default_editor())  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(report)
        return
    done = sum(p.status == "done" for p in report.papers)
    console.print(
        f"{len(report.papers)} papers: {done} extracted, {report.stored} claims stored, "
        f"{sum(p.dropped for p in report.papers)} dropped (not grounded), "
        f"{sum(p.merged for p in report.papers)} merged duplicates in {report.seconds:.1f}s"
    )
    for outcome in report.papers:
        if outcome.status != "done" or outcome.reason:
            err_console.print(
                f"  {escape(outcome.paper_id)}: {outcome.status}: {escape(outcome.reason)}"
            )
    console.print(usage_line(report.usage))
    if drafted is not None and drafted.outcomes:
        n = len(drafted.outcomes)
        console.print(
            f"checks drafted by the model: {drafted.drafted} of {n} claims "
            f"({drafted.confirmed} confirmed), "
            f"{(drafted.prompt_tokens + drafted.completion_tokens) / n:.0f} tokens and "
            f"{drafted.model_seconds / n:.2f}s per claim"
        )


@app.command("ls")
def ls(
    ctx: typer.Context,
    paper: str | None = typer.Option(None, "--paper", help="Only this paper's claims."),
    kind: str | None = typer.Option(None, "--kind", help="Only this kind."),
    removed: bool = typer.Option(False, "--removed", help="Include removed claims."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """List claims by paper."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        rows = claim_index.list_claims(
            session, challenge.challenge_id, paper=paper, kind=kind, include_removed=removed
        )
    if fmt is OutputFormat.json:
        print_json(rows)
        return
    table = Table(title=f"{len(rows)} claims", title_justify="left")
    for column in ("id", "kind", "claim", "values", "status"):
        table.add_column(column, overflow="fold")
    for row in rows:
        values = ", ".join(v.text for v in row.reported)
        table.add_row(escape(row.id), row.kind, escape(row.text), escape(values), row.status)
    console.print(table)


def _print_claim(view: claim_index.ClaimView) -> None:
    console.print(f"[bold]{escape(view.id)}[/] ({view.kind}, {view.status}, {view.origin})")
    console.print(escape(view.text))
    for quote in view.quotes:
        console.print(f'  [dim]{quote.field}[{quote.start}:{quote.end}][/] "{escape(quote.text)}"')
    for value in view.reported:
        console.print(f"  value: {escape(value.describe())}")
    if not view.scale.is_empty():
        console.print(f"  scale: {escape(view.scale.describe())}")
    if view.check is None:
        console.print("  check: none yet (its verdicts are inconclusive: no check yet)")
    else:
        check = view.check
        console.print(f"  check: {escape(check.describe())} [dim]({check.origin.value}, "
                      f"revision {check.revision})[/]")  # fmt: skip
        for quantity in check.for_claim(view.id).all_quantities():
            console.print(f"    log `{escape(quantity.key)}`")
    if view.provenance:
        console.print(f"  [dim]provenance: {escape(str(view.provenance))}[/]")
    for edit in view.edits:
        console.print(
            f"  [dim]{edit['at']} {escape(str(edit['editor']))} changed {edit['field']}: "
            f"{escape(str(edit['reason']))}[/]"
        )


@app.command("show")
def show(
    ctx: typer.Context,
    claim_id: str = typer.Argument(..., help="Claim id, e.g. abc123/C2."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Show one claim: quotes with offsets, reported values, scale, its check (the keys to
    log), provenance, history."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        claim, paper = claim_index.get_claim(session, challenge.challenge_id, claim_id)
        view = claim_index.service.claim_view(claim, paper.venue_id)
    if fmt is OutputFormat.json:
        print_json(view)
    else:
        _print_claim(view)


@app.command("add")
def add(
    ctx: typer.Context,
    paper: str = typer.Argument(..., help="Venue id of the paper."),
    text: str = typer.Option(..., "--text", help="The claim in one sentence."),
    kind: str = typer.Option(..., "--kind", help="result | efficiency | theory | qualitative."),
    quote: list[str] = typer.Option(..., "--quote", help="Verbatim quote (repeatable)."),
    by: str | None = EditorOption,
    fmt: OutputFormat = FormatOption,
) -> None:
    """Add a claim by hand; every quote must be verbatim in the paper."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        view = claim_index.add_claim(
            session, challenge.challenge_id, paper, text=text, kind=kind, quotes=quote,
            editor=by or default_editor(), drafting=challenge.settings.check_drafting,
        )  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(view)
    else:
        console.print(f"added {escape(view.id)}")


@app.command("import")
def import_(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="Claim list: JSON or CSV (paper id, claim, quote)."),
    threshold: float = typer.Option(
        DEFAULT_THRESHOLD,
        "--threshold",
        min=0.0,
        max=1.0,
        help="Least similarity of the best-matching sentence to anchor a claim; below it the "
        "claim is stored flagged unanchored.",
    ),
    by: str | None = EditorOption,
    fmt: OutputFormat = FormatOption,
) -> None:
    """Import another event's claim list, anchoring each claim in its paper's text."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        report = import_claims(session, challenge.challenge_id, file,
                               editor=by or default_editor(), threshold=threshold,
                               drafting=challenge.settings.check_drafting)  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(report)
        return
    console.print(
        f"{escape(report.source)}: {report.claims} claims, {len(report.added)} added, "
        f"{len(report.unanchored)} unanchored, {len(report.skipped)} already there"
    )
    for claim_id in report.unanchored:
        console.print(
            f"  unanchored {escape(claim_id)} (best similarity "
            f"{report.similarities[claim_id]:.2f}): fix with `claims edit --quote`"
        )


@app.command("edit")
def edit(
    ctx: typer.Context,
    claim_id: str = typer.Argument(..., help="Claim id, e.g. abc123/C2."),
    text: str | None = typer.Option(None, "--text", help="New claim text."),
    kind: str | None = typer.Option(None, "--kind", help="New kind."),
    quote: list[str] | None = typer.Option(None, "--quote", help="Replace quotes (repeatable)."),
    tolerance: float | None = typer.Option(
        None, "--tolerance", help="Relative tolerance the judge allows (default 0.05)."
    ),
    reason: str = ReasonOption,
    by: str | None = EditorOption,
    fmt: OutputFormat = FormatOption,
) -> None:
    """Edit a claim; the old values stay in its history."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        view = claim_index.edit_claim(
            session, challenge.challenge_id, claim_id, editor=by or default_editor(),
            reason=reason, text=text, kind=kind, quotes=quote or None, tolerance=tolerance,
            drafting=challenge.settings.check_drafting,
        )  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(view)
    else:
        console.print(f"edited {escape(view.id)}")


@app.command("rm")
def rm(
    ctx: typer.Context,
    claim_id: str = typer.Argument(..., help="Claim id, e.g. abc123/C2."),
    reason: str = ReasonOption,
    by: str | None = EditorOption,
) -> None:
    """Remove a claim (kept with status `removed`; its id is never reused)."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        view = claim_index.remove_claim(
            session, challenge.challenge_id, claim_id, editor=by or default_editor(),
            reason=reason,
        )  # fmt: skip
    console.print(f"removed {escape(view.id)}")
