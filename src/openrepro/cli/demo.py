"""`openrepro demo`: a small sample challenge, end to end, offline."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from openrepro.cli._common import FormatOption, OutputFormat, console, print_json, progress_bar
from openrepro.cli.claims import usage_line
from openrepro.demo import run_demo

__all__ = ["demo"]


def demo(
    path: Path = typer.Option(
        Path("openrepro-demo"),
        "--path",
        help="Folder of the demo challenge (reused if present).",
        file_okay=False,
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Create a demo challenge from the bundled sample, extract claims, print a summary."""
    with progress_bar("extracting claims", fmt) as progress:
        task = progress.add_task("extract", total=8)
        summary = run_demo(path, progress=lambda _: progress.advance(task))
    if fmt is OutputFormat.json:
        print_json(summary)
        return
    console.print(f"[bold]openrepro demo[/] in {escape(summary.folder)}/ ({summary.database})")
    console.print(
        f"import: {summary.imported.created} new, {summary.imported.updated} updated; "
        f"re-import: {summary.reimported.created} new, {summary.reimported.updated} updated"
    )
    status = ", ".join(f"{k} {v}" for k, v in summary.by_status.items())
    console.print(f"papers: {summary.papers} ({status})")
    console.print(f"search {summary.search_query!r}:")
    for hit in summary.search_hits:
        console.print(f"  {escape(hit.venue_id)}  {escape(hit.title)}")
    first, again = summary.extraction, summary.extraction_rerun
    console.print(
        f"claims: {len(summary.claims)} grounded claims from {len(first.papers)} papers "
        f"({sum(p.dropped for p in first.papers)} proposals dropped: quote not in the paper)"
    )
    console.print(f"  first run:  {usage_line(first.usage)}")
    console.print(f"  second run: {usage_line(again.usage)}")
    for claim in summary.claims[:5]:
        console.print(f"  {escape(claim.id)} [{claim.kind}] {escape(claim.text)}")
        console.print(f'    quote: "{escape(claim.quotes[0].text)}"')
    console.print(f"next: openrepro --dir {escape(summary.folder)} papers ls")
