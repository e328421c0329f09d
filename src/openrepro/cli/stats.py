"""`openrepro stats`: the outcome table, totals and per-participant credit."""

from __future__ import annotations

from enum import StrEnum

import typer
from rich.markup import escape
from rich.table import Table

from openrepro.cli._common import console, open_from, print_json
from openrepro.outcomes import Stats, compute_stats, rebuild_derived, render_markdown

__all__ = ["print_stats", "stats"]


class StatsFormat(StrEnum):
    table = "table"
    json = "json"
    md = "md"


def print_stats(stats: Stats) -> None:
    table = Table(title=f"{stats.challenge}: outcomes")
    table.add_column("Row")
    table.add_column("Papers", justify="right")
    table.add_column("%", justify="right")
    for row in stats.rows:
        of = "of attempted" if row.key == "examined" else "of examined"
        table.add_row(escape(row.label), str(row.count), f"{row.percent:.1f} % {of}")
    console.print(table)
    t = stats.totals
    console.print(
        f"{t.papers_attempted}/{t.papers} papers attempted ({t.share_attempted:.1f} %), "
        f"{t.logbooks} logbooks by {t.participants_active} participants "
        f"({t.participants} registered), {t.claims_judged}/{t.claims} claims judged, "
        f"{t.verdicts} verdicts, {t.jobs} jobs"
    )
    console.print("consensus: " + ", ".join(f"{k} {n}" for k, n in stats.consensus.items()))
    console.print("provenance: " + ", ".join(f"{k} {n}" for k, n in stats.provenance.items()))
    if stats.author_responses:
        console.print(
            "author responses: " + ", ".join(f"{k} {n}" for k, n in stats.author_responses.items())
        )
    if stats.credit:
        credit = Table(title="Credit (top 10)")
        for col in ("Participant", "Team", "Logbooks", "Verified", "Falsified", "Credit"):
            credit.add_column(col, justify="left" if col in ("Participant", "Team") else "right")
        for c in stats.credit[:10]:
            credit.add_row(escape(c.handle), escape(c.team or ""), str(c.logbooks),
                           str(c.verified), str(c.falsified), str(c.credit))  # fmt: skip
        console.print(credit)


def stats(
    ctx: typer.Context,
    fmt: StatsFormat = typer.Option(
        StatsFormat.table, "--format", "-f", help="table (people), json (agents) or md."
    ),
    public: bool = typer.Option(
        False, "--public", help="Leave out papers inside their anti-herding window."
    ),
    rebuild: bool = typer.Option(
        False, "--rebuild", help="First rebuild the derived outcome tables from the full query."
    ),
) -> None:
    """The seeds' outcome table (count and % of examined papers), totals, claim consensus,
    verdicts per provenance level, and per-participant credit."""
    challenge = open_from(ctx)
    if rebuild:
        rebuild_derived(challenge)
    result = compute_stats(challenge, public=public)
    if fmt is StatsFormat.json:
        print_json(result)
    elif fmt is StatsFormat.md:
        typer.echo(render_markdown(result), nl=False)
    else:
        print_stats(result)
