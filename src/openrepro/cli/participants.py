"""`openrepro participants`: register handles, issue API tokens, list people."""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from openrepro.cli._common import FormatOption, OutputFormat, console, open_from, print_json
from openrepro.identity import get_participant, list_participants, register, rotate_token

__all__ = ["app"]

app = typer.Typer(help="Participants, organizers and their API tokens.", no_args_is_help=True)


@app.command("register")
def register_cmd(
    ctx: typer.Context,
    handle: str = typer.Argument(..., help="Handle (the HF username where there is one)."),
    organizer: bool = typer.Option(False, "--organizer", help="Give the organizer role."),
    name: str = typer.Option("", help="Display name."),
    team: str | None = typer.Option(None, help="Team (teams count as one for independence)."),
    email: str | None = typer.Option(None, help="Contact address (never published)."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Register (or update) a participant and print a new API token: it is shown only now."""
    challenge = open_from(ctx)
    done = register(challenge, handle, role="organizer" if organizer else "participant",
                    name=name, team=team, email=email)  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(done)
        return
    console.print(f"{escape(done.participant.handle)} ({done.participant.role}) registered")
    console.print(f"API token (shown once): {done.token}")


@app.command("token")
def token_cmd(
    ctx: typer.Context,
    handle: str = typer.Argument(..., help="Participant handle."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Issue a new API token for a participant; the old one stops working."""
    token = rotate_token(open_from(ctx), handle)
    if fmt is OutputFormat.json:
        print_json({"handle": handle, "token": token})
    else:
        console.print(f"API token (shown once): {token}")


@app.command("ls")
def ls_cmd(ctx: typer.Context, fmt: OutputFormat = FormatOption) -> None:
    """List participants with their role, team and logbook count."""
    people = list_participants(open_from(ctx))
    if fmt is OutputFormat.json:
        print_json(people)
        return
    table = Table()
    for col in ("Handle", "Role", "Team", "Logbooks", "Token"):
        table.add_column(col)
    for p in people:
        table.add_row(escape(p.handle), p.role, escape(p.team or ""), str(p.logbooks),
                      "yes" if p.has_token else "no")  # fmt: skip
    console.print(table)


@app.command("show")
def show_cmd(
    ctx: typer.Context, handle: str = typer.Argument(...), fmt: OutputFormat = FormatOption
) -> None:
    """Show one participant."""
    person = get_participant(open_from(ctx), handle)
    if fmt is OutputFormat.json:
        print_json(person)
        return
    console.print(
        f"{escape(person.handle)}: {person.role}, team {escape(person.team or '-')}, "
        f"{person.logbooks} logbooks"
    )
