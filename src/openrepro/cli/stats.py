"""`openrepro stats`: the outcome table, totals and per-participant credit."""

from __future__ import annotations

from enum import StrEnum

import typer
from rich.markup import escape
from rich.table import Table

from openrepro.cli._common import console, open_from, print_json
from openrepro.outcomes import (
    PaperOutcome,
    Stats,
    compute_stats,
    paper_outcomes,
    rebuild_derived,
    render_markdown,
)

__all__ = ["print_paper_outcomes", "print_stats", "stats"]


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
    console.print(
        f"verified claims by provenance: {stats.describe_levels()} (a verified counts from "
        f"{stats.min_provenance_verified} up)"
    )
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


def print_paper_outcomes(outcomes: list[PaperOutcome], minimum: str) -> None:
    table = Table(title="Paper outcomes")
    for col in ("Paper", "Status", "Claims", "Verified claims by provenance"):
        table.add_column(col, justify="right" if col == "Claims" else "left", overflow="fold")
    for o in outcomes:
        table.add_row(escape(o.paper), o.status, str(o.claims), o.describe_levels(minimum))
    console.print(table)


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
    papers: list[str] = typer.Option(
        [],
        "--paper",
        help="Instead: these papers' outcome records (venue ids; repeatable), "
        "with their verified claims per provenance level.",
    ),
) -> None:
    """The seeds' outcome table (count and % of examined papers), totals, claim consensus,
    verdicts per provenance level, verified claims per provenance level (and those verified
    only below min_provenance_verified, not counted), and per-participant credit."""
    challenge = open_from(ctx)
    if rebuild:
        rebuild_derived(challenge)
    if papers:
        outcomes = paper_outcomes(challenge, venue_ids=papers, public=public)
        minimum = challenge.settings.min_provenance_verified
        if fmt is StatsFormat.json:
            print_json([{**o.model_dump(), "status": o.status} for o in outcomes])
        elif fmt is StatsFormat.md:
            typer.echo(
                "| Paper | Status | Claims | Verified claims by provenance |\n|---|---|---:|---|"
            )
            for o in outcomes:
                typer.echo(
                    f"| {o.paper} | {o.status} | {o.claims} | {o.describe_levels(minimum)} |"
                )
        else:
            print_paper_outcomes(outcomes, minimum)
        return
    result = compute_stats(challenge, public=public)
    if fmt is StatsFormat.json:
        print_json(result)
    elif fmt is StatsFormat.md:
        typer.echo(render_markdown(result), nl=False)
    else:
        print_stats(result)
