"""`openrepro verdicts`: current verdicts and organizer overrides."""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from openrepro.cli._common import FormatOption, OutputFormat, console, open_from, print_json
from openrepro.outcomes import override_verdict

__all__ = ["app"]

app = typer.Typer(help="Current verdicts and organizer overrides.", no_args_is_help=True)


@app.command("ls")
def ls_cmd(
    ctx: typer.Context,
    paper: str | None = typer.Option(None, help="Only this paper (venue id)."),
    logbook: int | None = typer.Option(None, "--logbook", help="Only this logbook (its id)."),
    participant: str | None = typer.Option(
        None, "--participant", help="Only this participant's logbooks (a handle)."
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Current verdicts (newest logbook revision and verdict, overrides applied)."""
    from openrepro.board.data import paper_row_id, verdict_cells
    from openrepro.identity import get_participant

    challenge = open_from(ctx)
    paper_id = paper_row_id(challenge, paper) if paper else None
    person = get_participant(challenge, participant).id if participant else None
    cells = verdict_cells(challenge, paper_id=paper_id, logbook_id=logbook,
                          participant_id=person, public=False)  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(cells)
        return
    table = Table()
    for col in ("Id", "Claim", "Logbook", "Participant", "Verdict", "Judge", "Provenance", "Flags",
                "Reason"):  # fmt: skip
        table.add_column(col)
    for c in cells:
        table.add_row(str(c.verdict_id), escape(f"{c.paper}/{c.claim_key}"), str(c.logbook_id),
                      escape(c.participant), c.value, c.judge_value, c.provenance,
                      ", ".join(c.flags), escape(c.rationale[:300]))  # fmt: skip
    console.print(table)


@app.command("override")
def override_cmd(
    ctx: typer.Context,
    verdict_id: int = typer.Argument(..., help="Verdict id (see `verdicts ls`)."),
    value: str = typer.Argument(..., help="verified, falsified, toy or inconclusive."),
    reason: str = typer.Option(..., "--reason", help="Why (kept with the edit)."),
    editor: str = typer.Option("organizer", "--editor", help="Who is overriding."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Override a verdict (organizers): the judge's value is kept beside the edit."""
    from openrepro.identity import Actor

    result = override_verdict(open_from(ctx), verdict_id, value, reason=reason,
                              actor=Actor(handle=editor, role="organizer"))  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(result)
        return
    console.print(f"verdict {verdict_id}: {result.old_value} -> {result.new_value}")
