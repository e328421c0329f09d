"""`openrepro claims eval` and `openrepro claims check ...`: draft claims' checks and measure the
drafters against labelled checks.

``claims check draft`` works on a quote given on the command line (no challenge needed);
``claims check draft --all`` drafts every stored claim by the configured model(s)
(:mod:`openrepro.claims.drafts`); ``claims check show | set | rm | redraft | human`` read and
change the checks stored with the claims (every change kept in the claim's history);
``claims check proposals | accept | queue`` list and confirm the checks participants proposed
and the models drafted, and the organizers' queue of disagreements. ``openrepro check propose``
(:data:`propose_app`) is the participant's side, in a workspace: it validates, grounds and
writes ``checks.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import TextColumn

from openrepro.claims.checks import (
    Check,
    Draft,
    draft_check,
    draft_with_fallback,
)
from openrepro.claims.checks.eval import (
    DrafterReport,
    evaluate_drafter,
    read_check_labels,
    render_report,
)
from openrepro.claims.drafts import (
    DraftOutcome,
    draft_all,
    mark_human,
    organizer_queue,
)
from openrepro.claims.proposals import ProposalView, list_proposals
from openrepro.claims.service import claim_view, get_claim, redraft_checks, set_check
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
from openrepro.config import CheckDrafting, Settings
from openrepro.errors import ChallengeNotFoundError, CheckError
from openrepro.judge.accept import accept_checks
from openrepro.llm import LLMClient, open_client
from openrepro.workspace import check_lines, propose_in_workspace

__all__ = ["check_app", "propose_app", "register"]

check_app = typer.Typer(help="Draft and inspect claims' checks.", no_args_is_help=True)
propose_app = typer.Typer(
    help="Propose checks for a workspace's claims (written to checks.json, read by submit).",
    no_args_is_help=True,
)

LLMOption = typer.Option(
    False,
    "--llm",
    help="Let the configured model draft where no rule applies (rules first; the model's draft "
    "is validated and grounded by code).",
)


def _client(ctx: typer.Context) -> LLMClient:
    """The challenge's model (with its cache) when run inside a challenge, else the default
    (embedded) model without a cache."""
    try:
        challenge = open_from(ctx)
        client = open_client(challenge.settings, challenge.store)
    except ChallengeNotFoundError:
        client = open_client(Settings(name="checks"))
    ctx.call_on_close(client.close)
    return client


def _settings(ctx: typer.Context) -> Settings:
    """The challenge's settings when run inside a challenge, else the defaults."""
    try:
        return open_from(ctx).settings
    except ChallengeNotFoundError:
        return Settings(name="checks")


def _print_draft(draft: Draft) -> None:
    if draft.check is None:
        reason = draft.reason.removeprefix("no check: ")
        err_console.print(f"no check: {escape(reason)}")
        if draft.withheld is not None:
            err_console.print(
                "the rules' reading, not published (review it; keep it with `claims check "
                "set` or `claims check redraft --drafting rules`):"
            )
            _print_check(draft.withheld, draft.rule, err_console)
        return
    _print_check(draft.check, draft.rule, console)


def _print_check(check: Check, rule: str, out: Console) -> None:
    out.print(f"[bold]{check.relation.value}[/] ({check.origin.value}, rule {rule})")
    out.print(escape(check.describe()))
    for q in check.all_quantities():
        out.print(f"  quantity {escape(q.name)}" + (f" key {escape(q.key)}" if q.key else ""))
    for constant in check.constants():
        out.print(f'  constant {constant.value:g} from "{escape(constant.text)}"')


@check_app.command("draft")
def draft(
    ctx: typer.Context,
    quote: str = typer.Option("", "--quote", "--text", help="The claim's verbatim quote."),
    claim_id: str = typer.Option("", "--claim", help="Claim id, for the quantities' keys."),
    llm: bool = LLMOption,
    all_: bool = typer.Option(
        False,
        "--all",
        help="Draft every stored claim without a confirmed check with the configured model "
        "(`llm_urls`/`llm_url`, else the embedded one): each draft is stored as the claim's "
        "drafted check, provisional until an independent drafter agrees. Resumable.",
    ),
    paper: list[str] | None = typer.Option(
        None, "--paper", help="With --all: only this paper's claims (repeatable)."
    ),
    panel_url: str = typer.Option(
        "",
        "--panel-url",
        help="With --all: a second OpenAI-compatible endpoint, serving a model of another "
        "family; where both models draft an equivalent check it is confirmed.",
    ),
    panel_model: str = typer.Option(
        "", "--panel-model", help="The second endpoint's model (empty: its first model)."
    ),
    limit: int = typer.Option(0, "--limit", min=0, help="With --all: at most N claims a model."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Draft a check for one quote (the rules behind their confidence gate, ungated when the
    challenge's `check_drafting` is `rules`; with --llm the model where the rules publish none),
    or with --all draft every stored claim without a confirmed check by the model(s)."""
    if all_:
        _draft_all(ctx, paper or None, panel_url, panel_model, limit, fmt)
        return
    if not quote:
        raise typer.BadParameter("give --quote, or --all to draft the stored claims")
    client = _client(ctx) if llm else None
    gate = _settings(ctx).check_drafting != "rules"
    result = draft_with_fallback(quote, client, claim_id=claim_id, gate=gate)
    if fmt is OutputFormat.json:
        print_json(result)
    else:
        _print_draft(result)
    if result.check is None:
        raise typer.Exit(1)


def _draft_all(
    ctx: typer.Context, papers: list[str] | None, panel_url: str, panel_model: str, limit: int,
    fmt: OutputFormat,
) -> None:  # fmt: skip
    challenge = open_from(ctx)
    clients = [open_client(challenge.settings, challenge.store)]
    if panel_url:
        second = challenge.settings.model_copy(
            update={"llm_url": panel_url, "llm_urls": [], "llm_model": panel_model}
        )
        clients.append(open_client(second, challenge.store))
    for client in clients:
        ctx.call_on_close(client.close)
    counts = TextColumn("{task.fields[checks]} checks, {task.fields[tokens]} tokens")
    with progress_bar("drafting", fmt, counts) as progress:
        task = progress.add_task("draft", total=None, checks=0, tokens=0)

        def advance(outcome: DraftOutcome) -> None:
            fields = progress.tasks[0].fields
            progress.update(task, advance=1,
                            checks=fields["checks"] + (outcome.status != "none"),
                            tokens=fields["tokens"] + outcome.prompt_tokens
                            + outcome.completion_tokens)  # fmt: skip

        report = draft_all(challenge.store, challenge.challenge_id, clients, papers=papers,
                           editor=default_editor(), limit=limit, progress=advance,
                           on_pending=lambda n: progress.update(task, total=n))  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(report)
        return
    done = len(report.outcomes)
    console.print(
        f"{done} drafts: {report.drafted} checks ({report.confirmed} confirmed by agreement), "
        f"{report.none} without a check, in {report.seconds:.1f}s"
    )
    if done:
        tokens = report.prompt_tokens + report.completion_tokens
        console.print(
            f"per claim: {report.prompt_tokens / done:.0f} prompt + "
            f"{report.completion_tokens / done:.0f} completion tokens ({tokens} in all), "
            f"{report.model_seconds / done:.2f}s in the model"
        )
    console.print(
        "drafted checks are provisional until an independent drafter agrees; "
        "`openrepro claims check queue` lists what the drafters disagree on"
    )
    for failure in report.failed[:10]:
        err_console.print(f"  not drafted: {escape(failure)}")
    if report.failed:
        err_console.print(f"{len(report.failed)} claims not drafted: run again to retry them")
        raise typer.Exit(1)


@check_app.command("show")
def show(
    ctx: typer.Context,
    claim: str = typer.Argument(..., help="Claim id <paper>/<key>."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """A claim's check, in words and as JSON (what the judge evaluates)."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        row, paper = get_claim(session, challenge.challenge_id, claim)
        view = claim_view(row, paper.venue_id)
    if fmt is OutputFormat.json:
        print_json(view.check)
        return
    if view.check is None:
        err_console.print(f"{escape(view.id)} has no check yet: its verdicts are inconclusive")
        raise typer.Exit(1)
    _print_draft(Draft(check=view.check, rule=view.check.rule))
    console.print_json(view.check.to_json())


def _print_proposal(row: ProposalView) -> None:
    team = f", team {escape(row.team)}" if row.team else ""
    confirmed = f" by {escape(row.confirmed_by)}" if row.confirmed_by else ""
    console.print(f"proposal {row.id} for {escape(row.claim)} by {escape(row.participant)}{team}:"
                  f" {row.status}{confirmed}")  # fmt: skip
    console.print(f"  {escape(row.description)}")


@check_app.command("proposals")
def proposals(
    ctx: typer.Context,
    claim: str | None = typer.Argument(None, help="Claim id <paper>/<key> (default: all)."),
    paper: str | None = typer.Option(None, "--paper", help="Only this paper's claims."),
    superseded: bool = typer.Option(False, "--superseded", help="Include superseded ones."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """The checks participants proposed (checks.json, check propose), with their status."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        rows = list_proposals(session, challenge.challenge_id, claim=claim, paper=paper,
                              include_superseded=superseded)  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(rows)
        return
    if not rows:
        console.print("no check proposals")
    for row in rows:
        _print_proposal(row)


@check_app.command("accept")
def accept(
    ctx: typer.Context,
    proposal: list[int] | None = typer.Argument(
        None, help="Proposal ids (claims check proposals)."
    ),
    draft_ids: list[int] | None = typer.Option(
        None, "--draft", help="A model's draft id (claims check queue); repeatable."
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Accept participants' proposed checks or models' drafts (one or several, in one
    transaction): each becomes its claim's check (the organizer's, noted "accepted by organizer
    X"; the old one kept in the claim's history), and the judge decides those claims again, with
    verdicts that count: it lists the stored verdicts each made stale (`--format json`: each
    accepted item's `stale`)."""
    if not proposal and not draft_ids:
        raise typer.BadParameter("give proposal ids, or --draft ids")
    challenge = open_from(ctx)
    editor = default_editor()
    with challenge.store.session() as session:
        done = accept_checks(session, challenge.challenge_id, proposals=proposal or [],
                             drafts=draft_ids or [], editor=editor)  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(done.proposals if not draft_ids else done)
        return
    for row in done.proposals:
        _print_proposal(row)
    for drafted in done.drafts:
        console.print(f"{escape(drafted.claim)}: the accepted draft is its check")
    for verdict in done.stale:
        console.print(f"  stale: logbook {verdict.logbook_id} {escape(verdict.claim)} "
                      f"({escape(verdict.participant)}, {verdict.verdict}): "
                      f"{escape(verdict.reason)}")  # fmt: skip
    console.print(
        f"{len(done.proposals) + len(done.drafts)} accepted, {len(done.stale)} verdicts made "
        "stale: their claims are queued for judging again (the board's workers, or `openrepro "
        "worker`; `openrepro status --queue` shows the queue)"
    )


@check_app.command("queue")
def queue(
    ctx: typer.Context,
    paper: str | None = typer.Option(None, "--paper", help="Only this paper's claims."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """The claims the organizers resolve: their drafts (models', participants') disagree, or
    nobody drafted a check; each draft in words with its tolerances. Resolve one with `claims
    check accept` (a proposal id, or --draft ID), `claims check set`, or `claims check human`."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        items = organizer_queue(session, challenge.challenge_id, paper=paper)
    if fmt is OutputFormat.json:
        print_json(items)
        return
    if not items:
        console.print("the queue is empty: every claim is confirmed, or waits for a second drafter")
    for item in items:
        console.print(f"[bold]{escape(item.claim)}[/]: {escape(item.reason)}")
        console.print(f'  quote: "{escape(item.quotes)}"')
        if item.current:
            console.print(f"  check now ({item.current_origin}): {escape(item.current)}")
        for d in item.drafts:
            how = f"--draft {d.id}" if d.source == "draft" else str(d.id)
            console.print(f"  [{escape(how)}] {escape(d.by)}: {escape(d.description)}")
        for why in item.abstained:
            console.print(f"  no check: {escape(why)}")
    if items:
        console.print(
            f"{len(items)} claims: `claims check accept ID` (or `--draft ID`), `claims check "
            "set CLAIM --file`, `claims check human CLAIM --reason`"
        )


@check_app.command("human")
def human(
    ctx: typer.Context,
    claim: str = typer.Argument(..., help="Claim id <paper>/<key>."),
    reason: str = typer.Option(..., "--reason", help="Why (kept in the claim's history)."),
    question: str = typer.Option("", "--question", help="The question shown to reviewers."),
) -> None:
    """Mark a claim `human`: only people judge it (review tasks), never code."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        mark_human(session, challenge.challenge_id, claim, editor=default_editor(),
                   reason=reason, question=question)  # fmt: skip
    console.print(f"{escape(claim)}: a human check; run `openrepro judge` to judge it again")


@propose_app.command("propose")
def propose(
    claim: str = typer.Argument(..., help="Claim id <paper>/<key> (or its key) of claims.json."),
    file: Path | None = typer.Option(
        None, "--file", help="The check as a JSON file.", exists=True, dir_okay=False
    ),
    text: str | None = typer.Option(None, "--json", help="The check as JSON text."),
    folder: Path = typer.Option(
        Path("."), "--dir", help="The workspace (default: here).", file_okay=False
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Validate and ground a check for one claim (every constant in its quotes), then write it
    to the workspace's checks.json; `openrepro submit` proposes it to the challenge."""
    if (file is None) == (text is None):
        raise CheckError("give the check with --file or --json (one of them)")
    raw = file.read_text(encoding="utf-8") if file is not None else str(text)
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise CheckError(f"{file or '--json'}: not JSON ({exc.msg}, line {exc.lineno})") from exc
    check = propose_in_workspace(folder, claim, data)
    if fmt is OutputFormat.json:
        print_json(check)
        return
    console.print(f"{escape(check.claim_id)}:")
    for line in check_lines(check, check.claim_id):
        console.print(escape(line))
    console.print(f"written to {escape(str(folder / 'checks.json'))}; submit to propose it")


@check_app.command("set")
def set_(
    ctx: typer.Context,
    claim: str = typer.Argument(..., help="Claim id <paper>/<key>."),
    file: Path = typer.Option(
        ..., "--file", help="The check as JSON (see docs/checks.md).", exists=True, dir_okay=False
    ),
    reason: str = typer.Option(..., "--reason", help="Why (kept in the claim's history)."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Replace a claim's check with an organizer's (validated and grounded in its quotes)."""
    check = Check.from_json(file.read_text(encoding="utf-8"))
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        view = set_check(session, challenge.challenge_id, claim, check, editor=default_editor(),
                         reason=reason)  # fmt: skip
    if fmt is OutputFormat.json:
        print_json(view.check)
    else:
        console.print(f"{escape(view.id)}: {escape(view.check.describe() if view.check else '')}")


@check_app.command("rm")
def rm(
    ctx: typer.Context,
    claim: str = typer.Argument(..., help="Claim id <paper>/<key>."),
    reason: str = typer.Option(..., "--reason", help="Why (kept in the claim's history)."),
) -> None:
    """Remove a claim's check (its verdicts are then inconclusive: no check yet)."""
    challenge = open_from(ctx)
    with challenge.store.session() as session:
        set_check(session, challenge.challenge_id, claim, None, editor=default_editor(),
                  reason=reason)  # fmt: skip
    console.print(f"{escape(claim)}: check removed")


@check_app.command("redraft")
def redraft(
    ctx: typer.Context,
    claims: list[str] | None = typer.Argument(
        None, help="Claim ids (default: every claim without a check)."
    ),
    replace: bool = typer.Option(
        False,
        "--replace",
        help="Also redraft the rules' earlier checks (an organizer's check is never replaced).",
    ),
    drafting: str | None = typer.Option(
        None,
        "--drafting",
        help="gated | rules | off, for this run (default: the setting `check_drafting`, off "
        "unless set); `rules` on named claims keeps the rules' reading once you have reviewed "
        "it (`--dry-run`, or `claims check draft --quote`).",
    ),
    dry_run: bool = typer.Option(
        False,
        "--dry-run",
        help="Show what the rules would store for each claim, in words, and store nothing: "
        "review it, then run again without --dry-run on the claims whose reading is right.",
    ),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Draft stored claims' checks by the rules (claims stored before checks existed)."""
    challenge = open_from(ctx)
    chosen = challenge.settings.check_drafting if drafting is None else drafting
    if chosen not in ("gated", "rules", "off"):
        raise typer.BadParameter(f"--drafting {drafting!r}: give gated, rules or off")
    why = "drafted by the rules" + (f" (drafting {chosen})" if drafting is not None else "")
    if chosen == "off":
        err_console.print(
            "check_drafting is off: nothing drafted (give --drafting gated or --drafting "
            "rules, or set the check with `claims check set`)"
        )
        raise typer.Exit(1)
    with challenge.store.session() as session:
        done = redraft_checks(session, challenge.challenge_id, claims or None,
                              editor=default_editor(), replace=replace,
                              drafting=cast(CheckDrafting, chosen), reason=why)  # fmt: skip
        readings = {
            name: get_claim(session, challenge.challenge_id, name)[0].check if ok else None
            for name, ok in done.items()
        }
        if dry_run:
            session.rollback()  # nothing is stored: the readings are for review
    if fmt is OutputFormat.json:
        print_json(readings if dry_run else done)
        return
    missing = [c for c, ok in done.items() if not ok]
    would = "would have" if dry_run else "have"
    console.print(f"{len(done) - len(missing)} of {len(done)} claims {would} a check")
    for name, reading in readings.items():
        if reading is None:
            console.print(f"  no rule applies: {escape(name)}")
        elif dry_run:
            described = Check.model_validate(reading).describe()
            console.print(f"  {escape(name)}: {escape(described)}")


def claims_eval(
    ctx: typer.Context,
    labels: Path = typer.Argument(..., help="Labelled checks, JSON Lines (see docs/checks.md)."),
    llm: bool = LLMOption,
    limit: int = typer.Option(0, "--limit", help="Only the first N labels (0: all).", min=0),
    cases: bool = typer.Option(False, "--cases", help="List the wrong and undrafted cases."),
    fmt: OutputFormat = FormatOption,
) -> None:
    """Measure the check drafters against labelled checks: coverage, accuracy, confusion."""
    rows = read_check_labels(labels)
    if limit:
        rows = rows[:limit]
    reports: list[DrafterReport] = [evaluate_drafter(rows, draft_check, name="rules")]
    if llm:
        client = _client(ctx)
        reports.append(
            evaluate_drafter(
                rows, lambda quote: draft_with_fallback(quote, client), name="rules+llm"
            )
        )
        err_console.print(
            f"LLM usage: {client.usage.calls} calls, {client.usage.cached} cached, "
            f"{client.usage.prompt_tokens} prompt + {client.usage.completion_tokens} completion "
            f"tokens, {client.usage.seconds:.1f}s in the model"
        )
    if fmt is OutputFormat.json:
        print_json(reports)
        return
    for report in reports:
        console.print(escape(render_report(report)))
        if cases:
            for case in report.cases:
                if case.drafted == "none" or not case.relation_ok:
                    console.print(
                        f"  {escape(case.id)}: gold {case.gold}, drafted {case.drafted} "
                        f"{escape(case.description or case.reason)}"
                    )


def register(claims_app: typer.Typer) -> None:
    """Add `eval` and the `check` group to the `claims` command."""
    claims_app.command("eval")(claims_eval)
    claims_app.add_typer(check_app, name="check")
