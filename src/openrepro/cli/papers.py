"""`openrepro papers`: import, list, show and search the paper index."""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from openrepro import papers as paper_index
from openrepro.cli._common import (
    FormatOption,
    OutputFormat,
    console,
    err_console,
    open_from,
    print_json,
    progress_bar,
)

__all__ = ["app"]

app = typer.Typer(
    help="Import, list, show and search the challenge's papers.", no_args_is_help=True
)

MAX_SKIPPED_SHOWN = 20


@app.command("import")
def import_(
    ctx: typer.Context,
    source: str = typer.Argument(
        ...,
        help="openreview:VENUE_ID | arxiv:ID[,ID..] | arxiv:@FILE | LIST.json | LIST.csv | "
        "PDF folder",
    ),
    batch_size: int | None = typer.Option(
        None, "--batch-size", min=1, help="Papers per transaction (default: setting batch_size)."
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Import papers; re-importing updates them and never duplicates. Bad rows are reported."""
    challenge = open_from(ctx)
    reader = paper_index.resolve_source(source, challenge.settings)
    with progress_bar("importing", fmt) as progress:
        task = progress.add_task("import", total=reader.total)
        report = paper_index.import_papers(
            challenge.store,
            challenge.challenge_id,
            reader.items(),
            source=reader.label,
            batch_size=batch_size or challenge.settings.batch_size,
            progress=lambda n: progress.advance(task, n),
        )
    if fmt is OutputFormat.json:
        print_json(report)
        return
    console.print(
        f"{escape(reader.label)}: {report.created} new, {report.updated} updated, "
        f"{len(report.skipped)} skipped in {report.seconds:.2f}s"
    )
    for item in report.skipped[:MAX_SKIPPED_SHOWN]:
        err_console.print(f"  skipped {escape(item.location)}: {escape(item.reason)}")
    if len(report.skipped) > MAX_SKIPPED_SHOWN:
        err_console.print(
            f"  ... and {len(report.skipped) - MAX_SKIPPED_SHOWN} more (use --format json)"
        )


@app.command("ls")
def ls(
    ctx: typer.Context,
    status: str | None = typer.Option(None, help="Only this status (e.g. Poster, Oral)."),
    track: str | None = typer.Option(None, help="Only this track."),
    has_claims: bool | None = typer.Option(
        None, "--has-claims/--no-claims", help="Only papers with (or without) extracted claims."
    ),
    limit: int = typer.Option(50, min=0, help="At most this many (0: all)."),
    offset: int = typer.Option(0, min=0, help="Skip this many first."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """List papers, ordered by venue id."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        rows, total = paper_index.list_papers(
            session,
            challenge.challenge_id,
            status=status,
            track=track,
            has_claims=has_claims,
            limit=limit or None,
            offset=offset,
        )
    if fmt is OutputFormat.json:
        print_json({"total": total, "offset": offset, "papers": rows})
        return
    table = Table(title=f"{len(rows)} of {total} papers", title_justify="left")
    for column in ("id", "title", "status", "track", "claims", "text"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(
            escape(row.venue_id),
            escape(row.title),
            escape(row.status or ""),
            escape(row.track or ""),
            str(row.claims),
            "yes" if row.has_full_text else "",
        )
    console.print(table)


@app.command("show")
def show(
    ctx: typer.Context,
    paper_id: str = typer.Argument(..., help="Venue id of the paper."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Show one paper's metadata and abstract."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        paper = paper_index.get_paper(session, challenge.challenge_id, paper_id)
    if fmt is OutputFormat.json:
        print_json(paper)
        return
    console.print(f"[bold]{escape(paper.title)}[/]")
    console.print(escape(", ".join(paper.authors)))
    for label, value in (
        ("id", paper.venue_id),
        ("status", paper.status),
        ("track", paper.track),
        ("decision", paper.decision),
        ("arXiv", paper.arxiv_id),
        ("page", paper.site_url),
        ("pdf", paper.pdf_url),
        ("source", paper.source),
        ("licence", paper.licence),
        ("claims", str(paper.claims)),
        ("full text", f"{paper.full_text_chars} characters" if paper.has_full_text else None),
    ):
        if value:
            console.print(f"[dim]{label}:[/] {escape(value)}")
    if paper.abstract:
        console.print()
        console.print(escape(paper.abstract))


@app.command("text")
def text(
    ctx: typer.Context,
    paper_id: str = typer.Argument(..., help="Venue id of the paper."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Print the paper's stored full text (the text claims' quotes are matched against; the
    abstract when no full text is stored)."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        stored = paper_index.stored_text(session, challenge.challenge_id, paper_id)
    if fmt is OutputFormat.json:
        print_json(stored)
        return
    if stored.field == "abstract":
        err_console.print(f"{escape(paper_id)}: no full text stored; the abstract:")
    console.print(stored.text, markup=False, highlight=False, soft_wrap=True)


@app.command("search")
def search(
    ctx: typer.Context,
    query: str = typer.Argument(..., help="Words to find in title, abstract and full text."),
    limit: int = typer.Option(20, min=1, help="At most this many hits."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Full-text search, best matches first (SQLite FTS5 or PostgreSQL full-text search)."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        hits = paper_index.search_papers(session, challenge.challenge_id, query, limit=limit)
    if fmt is OutputFormat.json:
        print_json(hits)
        return
    if not hits:
        console.print("no match")
        return
    table = Table(title=f"{len(hits)} hits for {escape(query)!r}", title_justify="left")
    for column in ("id", "title", "score", "snippet"):
        table.add_column(column, overflow="fold")
    for hit in hits:
        table.add_row(
            escape(hit.venue_id), escape(hit.title), f"{hit.score:.3f}", escape(hit.snippet)
        )
    console.print(table)
