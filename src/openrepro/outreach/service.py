"""Author outreach: a message per confirmed finding, exported as ``.eml`` or sent over SMTP, and
the authors' answers.

A *confirmed finding* is a claim whose newest re-check decision is ``confirmed``. Its message
names the claim and its quotes, every current verdict with the logbook's link (the board's
``public_url`` + ``/logbooks/<id>``, relative without it) and every evidence pointer, the
re-check decision and the code findings, and asks plainly: do you agree, or is our analysis
wrong? Drafts are idempotent per claim (``redraft`` replaces an unsent one).
"""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate, getaddresses, make_msgid
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.claims.service import claim_view, resolve_claim
from openrepro.errors import ConfigError, NotFoundError
from openrepro.evidence.records import Pointer, describe_pointer
from openrepro.identity import LOCAL_ORGANIZER, Actor, ensure_writable, require_organizer
from openrepro.outcomes.current import current_verdicts
from openrepro.outreach.records import MessageView
from openrepro.recheck import latest_decisions
from openrepro.store import Challenge, Claim, Paper
from openrepro.store.models import utcnow
from openrepro.store.tables_organizer import (
    OutreachMessage,
    RecheckRun,
)

__all__ = [
    "confirmed_findings",
    "draft_messages",
    "list_messages",
    "logbook_url",
    "send_messages",
]


def logbook_url(ctx: ChallengeContext, logbook_id: int) -> str:
    """The board's link to a logbook: ``public_url`` + ``/logbooks/<id>``, else relative."""
    base = ctx.settings.public_url.rstrip("/")
    return f"{base}/logbooks/{logbook_id}"


def confirmed_findings(session: Session, ctx: ChallengeContext) -> list[int]:
    """Claim ids whose newest re-check decision is ``confirmed``."""
    newest = latest_decisions(session, ctx.challenge_id)
    return sorted(c for c, row in newest.items() if row.decision == "confirmed")


def _recipients(paper: Paper) -> list[str]:
    found = [f"{n} <{a}>" if n else a for n, a in getaddresses(paper.authors or []) if "@" in a]
    return list(dict.fromkeys(found))


def _body(session: Session, ctx: ChallengeContext, claim: Claim, paper: Paper) -> str:
    challenge = session.get(Challenge, ctx.challenge_id)
    event = (challenge.title or challenge.name) if challenge else ctx.settings.name
    view = claim_view(claim, paper.venue_id)
    lines = [
        f'Dear authors of "{paper.title}",',
        "",
        f"we organize {event}{f' ({ctx.settings.venue})' if ctx.settings.venue else ''}, a "
        "community reproduction of the venue's papers, claim by claim. Reproductions of one "
        "claim of your paper disagree with it, and an adversarial re-check by the organizers "
        "did not find a flaw in them. Before this finding is final, we would like to hear "
        "from you.",
        "",
        "Here is what we found.",
        "",
        f"Claim {view.id} ({view.kind}): {view.text}",
    ]
    for quote in view.quotes:
        lines.append(f'  Quoted from the paper: "{quote.text}"')
    for value in view.reported:
        lines.append(f"  Reported value: {value.describe()}")
    lines += ["", "Verdicts (one per reproduction logbook, judged from recorded evidence):"]
    for cur in current_verdicts(session, ctx, [claim.id]):
        verdict = cur.verdict
        changed = f" (judge: {verdict.verdict})" if cur.value != verdict.verdict else ""
        lines += [
            f"- {cur.value}{changed}, logbook {cur.logbook.id} by {cur.participant} "
            f"(evidence level: {verdict.provenance})",
            f"  Logbook: {logbook_url(ctx, cur.logbook.id)}",
            f"  Why: {verdict.rationale}",
        ]
        if verdict.evidence:
            lines.append("  Evidence:")
            for raw in verdict.evidence:
                pointer = Pointer.model_validate(raw)
                lines.append(
                    f"    - {describe_pointer(pointer)}: {logbook_url(ctx, cur.logbook.id)}"
                )
    decision = latest_decisions(session, ctx.challenge_id, [claim.id]).get(claim.id)
    if decision is not None:
        lines += [
            "",
            f"Re-check: {decision.decision} by {decision.editor} on "
            f"{decision.created_at:%Y-%m-%d}: {decision.reason}",
        ]
    run = session.scalars(
        select(RecheckRun).where(RecheckRun.claim_id == claim.id).order_by(RecheckRun.id.desc())
    ).first()
    if run is not None:
        code = [f for f in run.findings if f.get("source") == "code"]
        if code:
            lines.append("Checks by code during the re-check:")
            lines += [f"- {f.get('message', '')}" for f in code]
    lines += [
        "",
        "Here is all the evidence: each logbook above is public at its link, with its recorded "
        "runs, their outputs and exit codes, and the logged metrics the pointers name.",
        "",
        "Do you agree with this finding, or is our analysis wrong? If the paper has already "
        "been corrected, please tell us in which version. Your answer will be recorded next to "
        "the finding on the board and in the published dataset.",
        "",
        "Thank you for your time,",
        f"the organizers of {event}",
    ]
    return "\n".join(lines) + "\n"


def _email(ctx: ChallengeContext, row: OutreachMessage) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = row.subject
    message["From"] = ctx.settings.smtp_from or "organizers@localhost"
    if row.recipients:
        message["To"] = ", ".join(row.recipients)
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = row.message_id
    message.set_content(row.body)
    return message


def _view(row: OutreachMessage, paper: str, claim: str) -> MessageView:
    return MessageView(
        id=row.id, paper=paper, claim=claim, recipients=list(row.recipients),
        subject=row.subject, body=row.body, status=row.status,
        eml_path=row.eml_path, message_id=row.message_id, created_at=row.created_at,
        sent_at=row.sent_at,
    )  # fmt: skip


def _outbox(ctx: ChallengeContext, out_dir: Path | None) -> Path:
    folder = out_dir or ctx.settings.directory / "outreach"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def draft_messages(
    ctx: ChallengeContext,
    *,
    claim: str | None = None,
    to: list[str] | None = None,
    out_dir: Path | None = None,
    redraft: bool = False,
    actor: Actor = LOCAL_ORGANIZER,
) -> list[MessageView]:
    """A draft per confirmed finding (or for ``claim``), each also written as a ``.eml`` file
    in ``out_dir`` (default: ``<challenge>/outreach``). A claim with a draft keeps it unless
    ``redraft`` (a sent message is never replaced)."""
    require_organizer(actor, "write to authors")
    folder = _outbox(ctx, out_dir)
    out: list[MessageView] = []
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        if claim is not None:
            target, _ = resolve_claim(session, ctx.challenge_id, claim)
            if target.id not in confirmed_findings(session, ctx):
                raise ConfigError(f"{claim} is not a confirmed finding (`recheck decide` first)")
            ids = [target.id]
        else:
            ids = confirmed_findings(session, ctx)
        for claim_id in ids:
            found = session.get(Claim, claim_id)
            assert found is not None
            paper = session.get(Paper, found.paper_id)
            assert paper is not None
            name = f"{paper.venue_id}/{found.key}"
            existing = session.scalars(
                select(OutreachMessage)
                .where(OutreachMessage.claim_id == claim_id)
                .order_by(OutreachMessage.id.desc())
            ).first()
            if existing is not None and (existing.status == "sent" or not redraft):
                out.append(_view(existing, paper.venue_id, name))
                continue
            row = existing or OutreachMessage(challenge_id=ctx.challenge_id, paper_id=paper.id,
                                              claim_id=claim_id)  # fmt: skip
            row.subject = f'Reproduction finding on "{paper.title}", claim {name}'
            row.body = _body(session, ctx, found, paper)
            row.recipients = list(to) if to else _recipients(paper)
            row.message_id = row.message_id or make_msgid(domain="openrepro.local")
            row.status = "draft"
            session.add(row)
            session.flush()
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
            path = folder / f"{row.id:04d}-{safe}.eml"
            path.write_bytes(bytes(_email(ctx, row)))
            row.eml_path = str(path)
            out.append(_view(row, paper.venue_id, name))
    return out


def list_messages(ctx: ChallengeContext, status: str | None = None) -> list[MessageView]:
    with ctx.store.session() as session:
        query = (
            select(OutreachMessage, Paper, Claim)
            .join(Paper, Paper.id == OutreachMessage.paper_id)
            .join(Claim, Claim.id == OutreachMessage.claim_id)
            .where(OutreachMessage.challenge_id == ctx.challenge_id)
            .order_by(OutreachMessage.id)
        )
        if status is not None:
            query = query.where(OutreachMessage.status == status)
        return [_view(m, p.venue_id, f"{p.venue_id}/{c.key}") for m, p, c in session.execute(query)]


def send_messages(
    ctx: ChallengeContext, ids: list[int] | None = None, *, actor: Actor = LOCAL_ORGANIZER
) -> list[MessageView]:
    """Send drafts (all, or ``ids``) through the configured SMTP server; each is marked sent
    once the server accepted it."""
    require_organizer(actor, "write to authors")
    settings = ctx.settings
    if not settings.smtp_host:
        raise ConfigError("no SMTP server configured (smtp_host); export the .eml files instead")
    sent: list[MessageView] = []
    with ctx.store.session() as session:
        ensure_writable(ctx, session)
        query = select(OutreachMessage).where(
            OutreachMessage.challenge_id == ctx.challenge_id, OutreachMessage.status == "draft"
        )
        if ids:
            query = query.where(OutreachMessage.id.in_(ids))
        rows = session.scalars(query.order_by(OutreachMessage.id)).all()
        if ids and len(rows) != len(set(ids)):
            missing = sorted(set(ids) - {r.id for r in rows})
            raise NotFoundError(f"no draft {', '.join(map(str, missing))}")
        for row in rows:
            if not row.recipients:
                raise ConfigError(
                    f"message {row.id} has no recipient: the paper lists no addresses; "
                    "draft it again with --to"
                )
        if not rows:
            return []
        with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=30) as smtp:
            if settings.smtp_starttls:
                smtp.starttls(context=ssl.create_default_context())
            if settings.smtp_user:
                smtp.login(settings.smtp_user, settings.smtp_password)
            for row in rows:
                smtp.send_message(_email(ctx, row))
                row.status, row.sent_at = "sent", utcnow()
                session.flush()
                found = session.get(Claim, row.claim_id)
                paper = session.get(Paper, row.paper_id)
                assert found is not None and paper is not None
                sent.append(_view(row, paper.venue_id, f"{paper.venue_id}/{found.key}"))
    return sent
