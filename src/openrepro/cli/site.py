"""`openrepro site build OUT`: the board as static files."""

from __future__ import annotations

from pathlib import Path

import typer

from openrepro.cli._common import FormatOption, OutputFormat, console, open_from, print_json

__all__ = ["app"]

app = typer.Typer(help="The board as a static site.", no_args_is_help=True)


@app.command("build")
def build(
    ctx: typer.Context,
    out: Path = typer.Argument(
        ..., help="Folder to write (updated in place when it exists).", file_okay=False
    ),
    force: bool = typer.Option(
        False,
        "--force",
        help="Render every page again, even those the store's change journal did not mark.",
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Write every board page as plain HTML (no JavaScript) for any static host; a rebuild
    renders only the pages whose data changed, and an unchanged store costs one query."""
    from rich.progress import Progress, SpinnerColumn, TextColumn

    from openrepro.board import build_board_site

    challenge = open_from(ctx)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TextColumn("{task.completed}"),
                  transient=True, disable=fmt is OutputFormat.json) as bar:  # fmt: skip
        task = bar.add_task("building the site", total=None)

        def progress(label: str, n: int) -> None:
            bar.update(task, description=f"building the site: {label}", advance=n)

        report = build_board_site(challenge, out, progress=progress, force=force)
    if fmt is OutputFormat.json:
        print_json(report)
        return
    console.print(
        f"{report.pages} pages in {report.out}/ ({report.rendered} rendered, "
        f"{report.written} written, {report.removed} removed, {report.files} images) "
        f"in {report.seconds:.1f} s; open {report.out}/index.html"
    )
