"""`openrepro participants`: register handles, issue API tokens, list people."""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from openrepro.cli._common import FormatOption, OutputFormat, console, open_from, print_json
from openrepro.identity import (
    approve,
    confirm_team,
    create_invite,
    get_participant,
    list_participants,
    register,
    rotate_token,
    set_team,
)
from openrepro.remote import normalise_server, register_remote, save_credential

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
    server: str | None = typer.Option(
        None,
        "--server",
        help="Register yourself on this board (e.g. https://repro.example.org) and keep the "
        "token in your user config, instead of registering in a local challenge folder.",
    ),
    invite: str | None = typer.Option(
        None, "--invite", help="Invite code (a board whose registration is `invite`)."
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Register (or update) a participant and print a new API token: it is shown only now.
    With --server: register yourself on that board; the token is stored for `submit` and
    `status` (in $XDG_CONFIG_HOME/openrepro/credentials.json, mode 0600), not printed."""
    if server:
        if organizer:
            raise typer.BadParameter("organizers are registered on the board's own machine",
                                     param_hint="--organizer")  # fmt: skip
        _register_remote(server, handle, name=name, team=team, invite=invite, fmt=fmt)
        return
    challenge = open_from(ctx)
    done = register(challenge, handle, role="organizer" if organizer else "participant",
                    name=name, team=team, email=email)  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(done)
        return
    console.print(f"{escape(done.participant.handle)} ({done.participant.role}) registered")
    console.print(f"API token (shown once): {done.token}")


def _register_remote(
    server: str, handle: str, *, name: str, team: str | None, invite: str | None,
    fmt: OutputFormat,
) -> None:  # fmt: skip
    server = normalise_server(server)
    done = register_remote(server, handle, team=team, name=name, invite=invite)
    path = save_credential(server, done.participant.handle, done.token)
    if fmt is OutputFormat.json:
        print_json({"server": server, "participant": done.participant,
                    "credentials": str(path)})  # fmt: skip
        return
    state = (
        " (pending: an organizer must approve it)" if done.participant.status == "pending" else ""
    )
    console.print(f"{escape(done.participant.handle)} registered on {escape(server)}{state}")
    console.print(f"token saved in {escape(str(path))}")


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
    for col in ("Handle", "Role", "Status", "Team", "Logbooks", "Token"):
        table.add_column(col)
    for p in people:
        team = escape(p.team or "") + (" (unconfirmed)" if p.team and not p.team_confirmed else "")
        table.add_row(escape(p.handle), p.role, p.status, team, str(p.logbooks),
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


@app.command("invite")
def invite_cmd(
    ctx: typer.Context,
    uses: int = typer.Option(1, min=1, help="How many registrations the code allows."),
    note: str = typer.Option("", help="What the code is for (kept with it)."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Create an invite code (registration policy `invite`); it is shown only now."""
    code = create_invite(open_from(ctx), uses=uses, note=note)
    if fmt is OutputFormat.json:
        print_json({"code": code, "uses": uses})
    else:
        console.print(f"invite code (shown once, {uses} use(s)): {code}")


@app.command("approve")
def approve_cmd(
    ctx: typer.Context, handle: str = typer.Argument(...), fmt: OutputFormat = FormatOption
) -> None:
    """Approve a pending registration (registration policy `approval`)."""
    person = approve(open_from(ctx), handle)
    if fmt is OutputFormat.json:
        print_json(person)
    else:
        console.print(f"{escape(person.handle)} is {person.status}")


@app.command("confirm-team")
def confirm_team_cmd(
    ctx: typer.Context, handle: str = typer.Argument(...), fmt: OutputFormat = FormatOption
) -> None:
    """Confirm a participant's membership of the team they named (it then counts as one
    group for independence)."""
    person = confirm_team(open_from(ctx), handle)
    if fmt is OutputFormat.json:
        print_json(person)
    else:
        console.print(f"{escape(person.handle)}: team {escape(person.team or '-')} confirmed")


@app.command("team")
def team_cmd(
    ctx: typer.Context,
    handle: str = typer.Argument(...),
    team: str | None = typer.Argument(None, help="Team name (none: no team)."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Set a participant's team (confirmed, as the organizer sets it)."""
    person = set_team(open_from(ctx), handle, team)
    if fmt is OutputFormat.json:
        print_json(person)
    else:
        console.print(f"{escape(person.handle)}: team {escape(person.team or '-')}")
