"""`openrepro freeze`: the challenge's record as a deterministic dataset; read-only afterwards."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from openrepro.cli._common import FormatOption, OutputFormat, console, open_from, print_json
from openrepro.errors import ConfigError
from openrepro.freeze import freeze_dataset, push_dataset
from openrepro.hub import hub_token
from openrepro.identity import reopen

__all__ = ["freeze"]


def freeze(
    ctx: typer.Context,
    out: Path | None = typer.Argument(
        None,
        metavar="OUT",
        help="Output folder (new, empty, or an earlier freeze, which is replaced).",
        file_okay=False,
    ),
    push: str | None = typer.Option(
        None,
        "--push",
        help="Also upload the folder as the HF Dataset owner/name (endpoint: "
        "`hf_endpoint`; token: HF_TOKEN).",
    ),
    private: bool = typer.Option(False, "--private", help="Create the pushed Dataset private."),
    license: str = typer.Option(
        "cc-by-4.0", "--license", help="Licence of the record, declared in the dataset card."
    ),
    reopen_: bool = typer.Option(
        False, "--reopen", help="Reopen a frozen challenge for writing instead (organizers)."
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Freeze the challenge: write its whole record (Parquet + JSON Lines, a dataset card,
    SHA256SUMS) to OUT and make it read-only; or reopen it with --reopen."""
    if reopen_:
        if out is not None or push:
            raise ConfigError("--reopen takes no OUT folder nor --push")
        challenge = open_from(ctx)
        reopen(challenge)
        if fmt is OutputFormat.json:
            print_json({"challenge": challenge.settings.name, "frozen": False})
        else:
            console.print(f"{escape(challenge.settings.name)} is open for writing again")
        return
    if out is None:
        raise ConfigError("give the output folder: openrepro freeze OUT")
    challenge = open_from(ctx)
    report = freeze_dataset(challenge, out, license=license)
    if push:
        report.pushed = push_dataset(
            Path(report.out),
            push,
            endpoint=challenge.settings.hf_endpoint,
            token=hub_token(challenge.settings.hf_token),
            private=private,
            message=f"Freeze of {report.challenge} at {report.frozen_at:%Y-%m-%d %H:%M} UTC",
        )
    if fmt is OutputFormat.json:
        print_json(report)
        return
    rows = ", ".join(f"{name} {n}" for name, n in report.rows.items())
    console.print(
        f"froze {escape(report.challenge)} (read-only since {report.frozen_at:%Y-%m-%d %H:%M} "
        f"UTC) into {escape(report.out)}: {len(report.files)} files, {report.bytes} bytes, "
        f"{report.seconds:.2f} s"
    )
    console.print(f"rows: {rows}")
    if report.pushed is not None:
        console.print(f"pushed to {escape(report.pushed.url)} (commit {report.pushed.commit[:12]})")
