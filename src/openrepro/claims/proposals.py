"""Checks proposed by participants: the capable models of an event draft, code validates, and
nothing counts until someone independent confirms.

A participant's coding agent proposes one check per claim, in the check format of
:mod:`openrepro.claims.checks.records`: in a ``checks.json`` at the logbook's root
(:data:`CHECKS_FILE`, read when the logbook is submitted) or with ``openrepro check propose``
in its workspace (which writes that file)::

    {"format": 1, "checks": {"p1/C2": {"relation": "bound", "subject": "gap",
      "quantities": [{"name": "gap"}], "comparator": "<=",
      "constant": {"value": 0.05, "text": "0.05"}}}}

Each proposal is validated (a well-formed check; not a ``human`` check, which only organizers
set), grounded (every constant stated in the claim's verbatim quotes,
:func:`~openrepro.claims.checks.grounding.grounding_problems`) and vetted (it says what the
quotes say, within the tolerance its relation allows, and no value satisfies it whatever it is:
:mod:`openrepro.claims.checks.vetting`); a refused one is reported with the reason and nothing
of it is stored. The server sets its ``origin`` and ``rule`` and keeps its free text (notes,
quantities' descriptions) out of what other participants pull.

Which check judges a logbook's claim (:func:`effective_check`): the claim's own check when an
organizer wrote it or it is a confirmed proposal; else the logbook's participant's own newest
proposal (the verdict is then **provisional**: shown, counted nowhere); else the check the rules
or a model drafted; else none (``inconclusive``, "no check yet").

A proposal is **confirmed** (:func:`accept_proposal`, :func:`propose_check`) when an organizer
accepts it, or when participants of two different confirmed teams proposed it in an equivalent
form (:func:`equivalence_form`: same relation, comparator, constants, tolerance, direction and
quantity roles; the quantities' names and descriptions may differ). A confirmed proposal becomes
the claim's check (origin ``participant``, a new revision in the claim's history), unless the
claim already has an organizer's check and no organizer accepted the proposal.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.claims.checks import Check, Origin, Relation, grounding_problems
from openrepro.claims.checks.vetting import proposal_problems, server_fields, with_defaults
from openrepro.claims.service import get_claim, set_check
from openrepro.errors import CheckError, ClaimError, NotFoundError
from openrepro.identity.service import check_not_frozen
from openrepro.logbooks.limits import MAX_CHECKS_FILE_BYTES
from openrepro.logbooks.manifest import CHECKS_FILE
from openrepro.store import Claim, Paper, Participant
from openrepro.store.tables_checks import CheckProposal

__all__ = [
    "CHECKS_FILE",
    "CHECKS_FORMAT",
    "TRUSTED_ORIGINS",
    "ProposalOutcome",
    "ProposalView",
    "accept_proposal",
    "check_digest",
    "effective_check",
    "equivalence_form",
    "list_proposals",
    "open_proposals",
    "parse_checks_file",
    "propose_check",
    "propose_checks",
    "validate_proposal",
]

CHECKS_FORMAT = 1
_BATCH = 5000
#: origins of a claim's check that a participant's proposal never replaces for judging
TRUSTED_ORIGINS = frozenset({Origin.organizer.value, Origin.participant.value})


class ProposalOutcome(BaseModel):
    """What became of one proposal: stored (or already stored), confirmed, or refused (why)."""

    claim: str
    status: Literal["stored", "unchanged", "confirmed", "refused"]
    proposal_id: int | None = None
    check: str = ""  # the check in words
    reason: str = ""
    #: the proposal will judge this participant's logbooks (the claim has no trusted check)
    used: bool = False


class ProposalView(BaseModel):
    id: int
    claim: str
    participant: str
    team: str = ""  # the proposer's team when its membership is confirmed
    status: str
    check: Check
    confirmed_by: str = ""
    logbook_id: int | None = None
    created_at: datetime | None = None
    description: str = Field(default="", description="the check in words")


def parse_checks_file(text: str, source: str = CHECKS_FILE) -> dict[str, Any]:
    """The proposals of a ``checks.json`` (claim id or key -> check JSON), at most
    :data:`~openrepro.logbooks.limits.MAX_CHECKS_FILE_BYTES`; a :class:`CheckError` names the
    file and the problem."""
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_CHECKS_FILE_BYTES:
        raise CheckError(f"{source}: {size:,} bytes, above the limit of {MAX_CHECKS_FILE_BYTES:,}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CheckError(f"{source}: not JSON ({exc.msg}, line {exc.lineno})") from exc
    except RecursionError as exc:  # the parser's own limit (about 1,000 levels)
        raise CheckError(f"{source}: nested too deep to be a file of checks") from exc
    if not isinstance(data, dict) or not isinstance(data.get("checks"), dict):
        raise CheckError(f'{source}: expected {{"format": 1, "checks": {{"<claim id>": {{...}}}}}}')
    version = data.get("format", CHECKS_FORMAT)
    if version != CHECKS_FORMAT:
        raise CheckError(f"{source}: format {version} is not known (expected {CHECKS_FORMAT})")
    return dict(data["checks"])


def validate_proposal(claim_id: str, quotes: str, data: Any) -> Check:
    """The proposal as a check of ``claim_id`` (origin ``participant``), or a
    :class:`CheckError` saying why it is refused."""
    if not isinstance(data, dict):
        raise CheckError("a proposal must be a check as a JSON object")
    check = Check.from_json({**data, "origin": Origin.participant.value, "revision": 1})
    if any(node.relation is Relation.human for node in check.nodes()):
        raise CheckError("a human check is set by organizers (claims check set)")
    # the server sets rule and origin, keeps free text out, fills each relation's tolerance
    keyed = (
        server_fields(with_defaults(check)).for_claim(claim_id).model_copy(update={"quote": quotes})
    )
    problems = grounding_problems(keyed, quotes)
    if problems:
        raise CheckError("not grounded in the claim's quotes: " + "; ".join(problems))
    refused = proposal_problems(keyed, quotes)
    if refused:
        raise CheckError("not what the claim's quotes say: " + "; ".join(refused))
    return keyed


def _number(constant: Any) -> float | None:
    return None if constant is None else round(float(constant.value), 12)


def equivalence_form(check: Check) -> str:
    """A digest of what a check asserts, without the names it gives its quantities: two
    proposals with the same form say the same thing (see the module docstring)."""
    roles: dict[str, str] = {}

    def role(name: str) -> str:
        return roles.setdefault(name, f"q{len(roles)}") if name else ""

    def form(node: Check) -> dict[str, Any]:
        return {
            "relation": node.relation.value,
            "comparator": node.comparator.value if node.comparator else None,
            "constant": _number(node.constant),
            "upper": _number(node.upper),
            "relative": node.relative,
            "direction": str(node.direction.value),
            "tolerance": [node.tolerance.rel, node.tolerance.abs],
            "trend": node.trend.value if node.trend else None,
            "law": node.law.value if node.law else None,
            "swept": bool(node.sweep),
            "unbounded": node.unbounded,
            "domain": sorted(_number(c) or 0.0 for c in node.domain),
            "subject": role(node.subject),
            "baselines": [role(b) for b in node.baselines],
            "inner": form(node.inner) if node.inner is not None else None,
            "parts": [form(p) for p in node.parts],
        }

    payload = json.dumps(form(check), sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def check_digest(check: Check | None, provisional: bool = False) -> str:
    """What a verdict depends on of its check: its stored form (revision and origin included),
    and whether it is a participant's unconfirmed proposal; "" for no check."""
    if check is None:
        return ""
    payload = check.to_json() + ("|provisional" if provisional else "")
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def effective_check(claim: Claim, own: CheckProposal | None) -> tuple[Check | None, bool]:
    """The check that judges ``claim`` in a logbook whose participant's newest open proposal for
    it is ``own``, and whether the verdict is provisional (see the module docstring)."""
    stored = claim.check
    if stored and stored.get("origin") in TRUSTED_ORIGINS:
        return Check.from_json(stored), False
    if own is not None and own.status == "proposed":
        return Check.from_json(own.check), True
    return (Check.from_json(stored), False) if stored else (None, False)


def open_proposals(
    session: Session, claim_ids: Iterable[int], participant_ids: Iterable[int]
) -> dict[tuple[int, int], CheckProposal]:
    """(claim id, participant id) -> that participant's newest open (``proposed``) proposal."""
    claims, people = sorted(set(claim_ids)), set(participant_ids)
    if not claims or not people:
        return {}
    out: dict[tuple[int, int], CheckProposal] = {}
    for start in range(0, len(claims), _BATCH):  # bounded IN lists (SQLite's variable cap)
        rows = session.scalars(
            select(CheckProposal)
            .where(
                CheckProposal.claim_id.in_(claims[start : start + _BATCH]),
                CheckProposal.status == "proposed",
            )
            .order_by(CheckProposal.id)
        )
        out.update({(r.claim_id, r.participant_id): r for r in rows if r.participant_id in people})
    return out


def _team(person: Participant) -> str:
    return person.team if person.team and person.team_confirmed else ""


def _confirm(
    session: Session, challenge_id: int, claim: Claim, paper: Paper, row: CheckProposal, *,
    by: str, editor: str, replace_organizer: bool,
) -> None:  # fmt: skip
    """Mark ``row`` confirmed and make it the claim's check (kept in the claim's history)."""
    row.status, row.confirmed_by, row.confirmed_at = "confirmed", by, datetime.now(UTC)
    current = claim.check or {}
    if current.get("origin") == Origin.organizer.value and not replace_organizer:
        return  # the organizer's check stays; the proposal is confirmed but not used
    check = Check.from_json(row.check)
    with contextlib.suppress(ClaimError):  # the claim has this very check already
        set_check(session, challenge_id, f"{paper.venue_id}/{claim.key}", check,
                  editor=editor, reason=f"proposal {row.id} confirmed ({by})",
                  origin=Origin.participant)  # fmt: skip


def propose_check(
    session: Session,
    challenge_id: int,
    participant: Participant,
    claim_ref: str,
    data: Any,
    *,
    logbook_id: int | None = None,
) -> ProposalOutcome:
    """Validate, ground and store one proposal by ``participant`` for ``claim_ref`` (an id
    ``<paper>/<key>``); a refused proposal is returned with its reason, nothing stored. The
    participant's earlier open proposals for the claim are superseded; an equivalent proposal
    by a participant of another confirmed team confirms both."""
    check_not_frozen(session, challenge_id)
    try:
        claim, paper = get_claim(session, challenge_id, claim_ref)
    except (ClaimError, NotFoundError) as exc:
        return ProposalOutcome(claim=claim_ref, status="refused", reason=str(exc))
    name = f"{paper.venue_id}/{claim.key}"
    if claim.status != "active":
        return ProposalOutcome(claim=name, status="refused", reason=f"claim is {claim.status}")
    quotes = " … ".join(q["text"] for q in claim.quotes)
    try:
        check = validate_proposal(name, quotes, data)
    except CheckError as exc:
        return ProposalOutcome(claim=name, status="refused", reason=str(exc))
    form = equivalence_form(check)
    trusted = (claim.check or {}).get("origin") in TRUSTED_ORIGINS
    mine = session.scalars(
        select(CheckProposal).where(
            CheckProposal.claim_id == claim.id, CheckProposal.participant_id == participant.id
        )
    ).all()
    same = next((p for p in mine if p.form == form), None)
    for other in mine:
        if other is not same and other.status == "proposed":
            other.status = "superseded"
    if same is not None:
        status: Literal["stored", "unchanged"] = "unchanged"
        if same.status == "superseded":
            same.status = "proposed"
        row = same
    else:
        status = "stored"
        row = CheckProposal(claim_id=claim.id, participant_id=participant.id,
                            logbook_id=logbook_id, check=check.model_dump(mode="json"),
                            form=form, status="proposed")  # fmt: skip
        session.add(row)
    session.flush()
    outcome = ProposalOutcome(claim=name, status=status, proposal_id=row.id,
                              check=check.describe(), used=not trusted)  # fmt: skip
    team = _team(participant)
    if row.status == "proposed" and team:
        twin = session.execute(
            select(CheckProposal, Participant)
            .join(Participant, Participant.id == CheckProposal.participant_id)
            .where(
                CheckProposal.claim_id == claim.id,
                CheckProposal.form == form,
                CheckProposal.id != row.id,
                CheckProposal.status.in_(("proposed", "confirmed")),
                Participant.team_confirmed.is_(True),
                Participant.team != team,
            )
            .order_by(CheckProposal.id)
        ).first()
        if twin is not None:
            other_row, proposer = twin
            _confirm(session, challenge_id, claim, paper, row,
                     by=f"equivalent:{other_row.id} (team {proposer.team})",
                     editor=participant.handle, replace_organizer=False)  # fmt: skip
            if other_row.status == "proposed":
                other_row.status, other_row.confirmed_by = "confirmed", f"equivalent:{row.id}"
                other_row.confirmed_at = row.confirmed_at
            outcome.status = "confirmed"
    session.flush()
    return outcome


def propose_checks(
    session: Session,
    challenge_id: int,
    participant: Participant,
    paper: Paper,
    proposals: dict[str, Any],
    *,
    logbook_id: int | None = None,
) -> list[ProposalOutcome]:
    """Every proposal of a ``checks.json`` (claims by id ``<paper>/<key>`` or key ``C2``) for
    ``paper``; a claim of another paper is refused."""
    out = []
    for ref, data in proposals.items():
        claim_ref = ref if "/" in ref else f"{paper.venue_id}/{ref}"
        if claim_ref.rpartition("/")[0] != paper.venue_id:
            out.append(ProposalOutcome(claim=ref, status="refused",
                                       reason=f"not a claim of {paper.venue_id}"))  # fmt: skip
            continue
        out.append(propose_check(session, challenge_id, participant, claim_ref, data,
                                 logbook_id=logbook_id))  # fmt: skip
    return out


def _view(row: CheckProposal, claim: Claim, paper: Paper, person: Participant) -> ProposalView:
    check = Check.from_json(row.check)
    return ProposalView(
        id=row.id, claim=f"{paper.venue_id}/{claim.key}", participant=person.handle,
        team=_team(person), status=row.status, check=check, confirmed_by=row.confirmed_by,
        logbook_id=row.logbook_id, created_at=row.created_at, description=check.describe(),
    )  # fmt: skip


def list_proposals(
    session: Session,
    challenge_id: int,
    *,
    claim: str | None = None,
    paper: str | None = None,
    include_superseded: bool = False,
) -> list[ProposalView]:
    """The proposals of one claim (``<paper>/<key>``), of one paper, or of the challenge."""
    query = (
        select(CheckProposal, Claim, Paper, Participant)
        .join(Claim, Claim.id == CheckProposal.claim_id)
        .join(Paper, Paper.id == Claim.paper_id)
        .join(Participant, Participant.id == CheckProposal.participant_id)
        .where(Paper.challenge_id == challenge_id)
        .order_by(CheckProposal.id)
    )
    if claim is not None:
        row, _ = get_claim(session, challenge_id, claim)
        query = query.where(CheckProposal.claim_id == row.id)
    if paper is not None:
        query = query.where(Paper.venue_id == paper)
    if not include_superseded:
        query = query.where(CheckProposal.status != "superseded")
    return [_view(*row) for row in session.execute(query)]


def accept_proposal(
    session: Session, challenge_id: int, proposal_id: int, *, editor: str
) -> ProposalView:
    """An organizer confirms proposal ``proposal_id``: it becomes its claim's check (replacing
    any earlier one, kept in the claim's history), so verdicts under it count."""
    check_not_frozen(session, challenge_id)
    found = session.execute(
        select(CheckProposal, Claim, Paper, Participant)
        .join(Claim, Claim.id == CheckProposal.claim_id)
        .join(Paper, Paper.id == Claim.paper_id)
        .join(Participant, Participant.id == CheckProposal.participant_id)
        .where(CheckProposal.id == proposal_id, Paper.challenge_id == challenge_id)
    ).first()
    if found is None:
        raise NotFoundError(f"no check proposal {proposal_id}")
    row, claim, paper, person = found
    if row.status == "superseded":
        raise CheckError(
            f"proposal {proposal_id} was superseded by a newer proposal of {person.handle}"
        )
    _confirm(session, challenge_id, claim, paper, row, by=f"organizer:{editor}", editor=editor,
             replace_organizer=True)  # fmt: skip
    session.flush()
    return _view(row, claim, paper, person)
