"""Checks proposed by participants: the capable models of an event draft, code validates, and
nothing counts until someone independent confirms.

A participant's coding agent proposes one check per claim, in the check format of
:mod:`openrepro.claims.checks.records`: in a ``checks.json`` at the logbook's root
(:data:`~openrepro.logbooks.manifest.CHECKS_FILE`, read when the logbook is submitted,
:mod:`openrepro.intake`) or with ``openrepro check propose``
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

Which check judges a logbook's claim (:func:`effective_check`): the claim's own check when it
is trusted (:data:`~openrepro.claims.checks.TRUSTED_ORIGINS`: an organizer's, or one confirmed
by agreement); else the logbook's participant's own newest proposal (the verdict is then
**provisional**: shown, counted nowhere); else the check the rules drafted, or a model's
**drafted** check (:mod:`openrepro.claims.drafts`; provisional too); else none
(``inconclusive``, "no check yet").

A proposal is **confirmed** (:func:`accept_proposal`, :func:`propose_check`) when an organizer
accepts it (the claim's check then has origin ``organizer`` and the note "accepted by organizer
X (proposal N of P)"), or when an independent drafter drafted it in an equivalent form
(:func:`equivalence_form`, by role, never by position): a participant of another confirmed
team, or a model whose draft it matches (:func:`openrepro.claims.drafts.agree_with_drafts`).
Agreement installs the EARLIEST of the agreeing drafts (the one logbooks were written against,
never the newcomer's text), with who agreed in its note, and never replaces a trusted check:
once a claim's check counts, a matching proposal is only marked as agreeing with it.
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

from openrepro.claims.checks import (
    TRUSTED_ORIGINS,
    Check,
    Comparator,
    Direction,
    Origin,
    Relation,
    grounding_problems,
    sweep_metric,
    sweeps_of,
)
from openrepro.claims.checks.records import MAX_CHECKS_FILE_BYTES
from openrepro.claims.checks.vetting import proposal_problems, server_fields, with_defaults
from openrepro.claims.service import get_claim, set_check
from openrepro.claims.values import find_numbers
from openrepro.errors import CheckError, ClaimError, NotFoundError
from openrepro.identity.service import check_not_frozen
from openrepro.store import Claim, Paper, Participant
from openrepro.store.tables_checks import CheckDraft, CheckProposal

__all__ = [
    "CHECKS_FORMAT",
    "TRUSTED_ORIGINS",
    "ProposalOutcome",
    "ProposalView",
    "accept_proposal",
    "agree_with_drafts",
    "agreeing_proposal",
    "check_digest",
    "confirm_agreement",
    "confirmed_team",
    "effective_check",
    "equivalence_form",
    "install_agreed",
    "list_proposals",
    "open_proposals",
    "parse_checks_file",
    "propose_check",
    "propose_checks",
    "trusted",
    "validate_proposal",
]

CHECKS_FORMAT = 1
_BATCH = 5000


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


def parse_checks_file(text: str, source: str) -> dict[str, Any]:
    """The proposals of a ``checks.json`` (claim id or key -> check JSON), at most
    :data:`~openrepro.claims.checks.records.MAX_CHECKS_FILE_BYTES`; a :class:`CheckError` names
    the file (``source``: its name or path, as the caller knows it) and the problem."""
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


def _stated(constant: Any) -> list[Any] | None:
    """A constant as what it asserts: its value and the unit its text writes ("88.1%")."""
    if constant is None:
        return None
    mentions = find_numbers(constant.text)
    unit = mentions[0].unit.lower() if len(mentions) == 1 else ""
    return [_number(constant), unit]


def _label(text: str) -> str:
    return " ".join(text.lower().split())


def _ordering_op(node: Check) -> str | None:
    """The comparator an ordering is decided by (its own, else its direction's)."""
    if node.comparator is not None:
        return node.comparator.value
    if node.direction is Direction.none:
        return None
    return Comparator.lt.value if node.direction is Direction.lower else Comparator.gt.value


#: words a quantity's name may carry or drop without naming another quantity
_FILLER = frozenset({"a", "an", "the", "of", "on", "in", "at", "for", "by", "to", "and", "with"})


def _name_words(name: str) -> str:
    """A quantity's name as the set of its words ("cub_accuracy" and "accuracy_on_cub" name the
    same quantity; "accuracy_without_x" stays apart from "accuracy_x"): two drafters that
    name a quantity in another order still agree, and which quantity is the subject still
    counts."""
    words = {w for w in name.split("_") if w and w not in _FILLER}
    return "_".join(sorted(words)) or name


def equivalence_form(check: Check) -> str:
    """A digest of what a check asserts, by role, never by position: two drafts with the same
    form accept exactly the same evidence.

    Every field the judge decides by is in it, and no other: the relation, the comparator
    (an ordering's direction, where it has none), each constant with the unit its text writes,
    the tolerance (where the relation uses one),
    the trend or law, the swept variable, the quantifier's domain, labels, count and
    ``at_least``, the rate's order, exponent and log factor, the scale, the human judgement,
    and which quantity is the subject and which the baselines. A quantity is known by its name
    (the metric key a logbook logs it under; its words in any order, :func:`_name_words`) with
    its unit and sweep: the name is left out only
    where a check measures one quantity, whose role is then plain. So "avg lower than last"
    and "last lower than avg" differ; nested parts of a conjunction are compared as a set."""
    single = len(check.all_quantities()) == 1
    # a sweep stated on the quantity or on its node is the same sweep (the judge's reading)
    swept = {name: sweep_metric(sweep) for name, sweep in sweeps_of(check).items()}

    def who(name: str) -> str:
        return ("subject" if single else _name_words(name)) if name else ""

    def form(node: Check) -> dict[str, Any]:
        ordering = node.relation is Relation.ordering
        op = _ordering_op(node) if ordering else (
            node.comparator.value if node.comparator else None
        )  # fmt: skip
        uses_tolerance = not (ordering and op not in {"ge", "le"})
        rate = node.rate
        return {
            "relation": node.relation.value,
            "comparator": op,
            "constant": _stated(node.constant),
            "upper": _stated(node.upper),
            "relative": node.relative,
            # the judge reads a direction only where an ordering has no comparator (``op``):
            # elsewhere it decides nothing, and two drafts that differ in it accept the same
            # evidence (fresh11: a third of the equal pairs of right checks differed only so)
            "direction": None,
            "tolerance": [node.tolerance.rel, node.tolerance.abs] if uses_tolerance else None,
            "trend": node.trend.value if node.trend else None,
            "law": node.law.value if node.law else None,
            "sweep": sweep_metric(node.sweep) if node.sweep else "",
            "unbounded": node.unbounded,
            "domain": sorted(_number(c) or 0.0 for c in node.domain),
            "labels": sorted(_label(label) for label in node.labels),
            "count": _number(node.count),
            "at_least": _number(node.at_least),
            "rate": None
            if rate is None
            else [rate.order.value, _number(rate.exponent), _number(rate.log_exponent) or 0.0],
            "scale": node.scale.model_dump(mode="json", exclude_defaults=True),
            "human": node.human.model_dump(mode="json") if node.human is not None else None,
            "subject": who(node.subject),
            "baselines": sorted(who(b) for b in node.baselines),
            "quantities": sorted(
                [who(q.name), q.unit.strip().lower(), swept.get(q.name, "")]
                for q in node.quantities
            ),
            "inner": form(node.inner) if node.inner is not None else None,
            "parts": sorted(json.dumps(form(p), sort_keys=True) for p in node.parts),
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


def agreeing_proposal(
    session: Session,
    claim_id: int,
    form: str,
    *,
    besides: int | None = None,
    other_team: str = "",
) -> tuple[CheckProposal, Participant] | None:
    """The earliest open proposal for the claim in equivalence ``form`` by a participant of a
    confirmed team (another than ``other_team``; any named team without one), other than the
    proposal ``besides``: the independent drafter that confirms by agreement."""
    query = (
        select(CheckProposal, Participant)
        .join(Participant, Participant.id == CheckProposal.participant_id)
        .where(
            CheckProposal.claim_id == claim_id,
            CheckProposal.form == form,
            CheckProposal.status == "proposed",
            Participant.team_confirmed.is_(True),
            Participant.team != other_team,
        )
        .order_by(CheckProposal.id)
    )
    if besides is not None:
        query = query.where(CheckProposal.id != besides)
    row = session.execute(query).first()
    return None if row is None else (row[0], row[1])


def effective_check(claim: Claim, own: CheckProposal | None) -> tuple[Check | None, bool]:
    """The check that judges ``claim`` in a logbook whose participant's newest open proposal for
    it is ``own``, and whether the verdict is provisional (see the module docstring)."""
    stored = claim.check
    if stored and stored.get("origin") in TRUSTED_ORIGINS:
        return Check.from_json(stored), False
    if own is not None and own.status == "proposed":
        return Check.from_json(own.check), True
    if not stored:
        return None, False
    # a model's drafted check judges, provisionally, until an independent drafter agrees
    return Check.from_json(stored), stored.get("origin") == Origin.llm.value


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


def confirmed_team(person: Participant) -> str:
    """The participant's team when an organizer confirmed its membership, else \"\"."""
    return person.team if person.team and person.team_confirmed else ""


def trusted(claim: Claim) -> bool:
    """Whether ``claim``'s check counts and is never replaced by agreement (an organizer's, or
    one confirmed by independent drafters)."""
    return (claim.check or {}).get("origin") in TRUSTED_ORIGINS


def install_agreed(
    session: Session, challenge_id: int, claim: Claim, paper: Paper, check: dict[str, Any], *,
    editor: str, reason: str, origin: Origin, note: str,
) -> bool:  # fmt: skip
    """Make ``check`` (the EARLIEST of the agreeing drafts: the one logbooks were written
    against) the claim's check, with who agreed in its ``note``; never over a check that is
    already trusted (an organizer's or a confirmed one). Returns whether it was installed."""
    if trusted(claim):
        return False
    agreed = Check.from_json(check).model_copy(update={"note": note[:300]})
    with contextlib.suppress(ClaimError):  # the claim has this very check already
        set_check(session, challenge_id, f"{paper.venue_id}/{claim.key}", agreed,
                  editor=editor, reason=reason, origin=origin)  # fmt: skip
    return True


def confirm_agreement(
    session: Session, challenge_id: int, claim: Claim, paper: Paper, *,
    draft: CheckDraft, other: CheckDraft | CheckProposal, who: str, editor: str,
) -> str:  # fmt: skip
    """Mark ``draft`` and ``other`` (an equivalent draft of another family, or a confirmed
    team's proposal) confirmed and install the earlier of the two; returns who agreed."""
    now = datetime.now(UTC)
    if isinstance(other, CheckDraft):
        draft.confirmed_by = f"draft:{other.id} ({other.drafter})"
        other.confirmed_by = f"draft:{draft.id} ({draft.drafter})"
        other.status = "confirmed"
    else:
        draft.confirmed_by = f"proposal:{other.id} ({who})"
        other.status, other.confirmed_by = "confirmed", f"draft:{draft.id} ({draft.drafter})"
    draft.status = "confirmed"
    draft.confirmed_at = other.confirmed_at = now
    first: CheckDraft | CheckProposal = other if _earlier(other, draft) else draft
    agreed = (
        f"confirmed by agreement: draft {draft.id} ({draft.drafter}) and "
        + (f"draft {other.id} ({other.drafter})" if isinstance(other, CheckDraft)
           else f"proposal {other.id} ({who})")
    )  # fmt: skip
    assert first.check is not None
    install_agreed(session, challenge_id, claim, paper, first.check, editor=editor,
                   reason=agreed, origin=Origin.confirmed, note=agreed)  # fmt: skip
    return draft.confirmed_by


def _earlier(a: CheckDraft | CheckProposal, b: CheckDraft | CheckProposal) -> bool:
    """Whether ``a`` was drafted before ``b`` (the one logbooks could be written against)."""
    if a.created_at is None or b.created_at is None:
        return False
    at, bt = a.created_at, b.created_at
    if (at.tzinfo is None) != (bt.tzinfo is None):
        at, bt = at.replace(tzinfo=None), bt.replace(tzinfo=None)
    return at < bt


def agree_with_drafts(
    session: Session,
    challenge_id: int,
    claim: Claim,
    paper: Paper,
    proposal: CheckProposal,
    participant: Participant,
) -> bool:
    """A confirmed team's participant proposed ``proposal``: where a model drafted an
    equivalent check for the claim, both are confirmed and the earlier is the claim's check.
    Returns whether they agreed."""
    team = confirmed_team(participant)
    if not team or proposal.status != "proposed" or trusted(claim):
        return False
    draft = session.scalars(
        select(CheckDraft)
        .where(
            CheckDraft.claim_id == claim.id,
            CheckDraft.form == proposal.form,
            CheckDraft.status.in_(("drafted", "confirmed")),
        )
        .order_by(CheckDraft.id)
    ).first()
    if draft is None:
        return False
    confirm_agreement(session, challenge_id, claim, paper, draft=draft, other=proposal,
                  who=f"{participant.handle}, team {team}",
                  editor=participant.handle)  # fmt: skip
    session.flush()
    return True


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
    counted = trusted(claim)
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
                              check=check.describe(), used=not counted)  # fmt: skip
    team = confirmed_team(participant)
    if row.status == "proposed" and counted:
        # the claim's check counts already and agreement never replaces it: a proposal that
        # says the same is marked as agreeing with it, any other stays a proposal
        if form == equivalence_form(Check.from_json(claim.check or {})):
            row.status, row.confirmed_by = "confirmed", "agrees with the claim's check"
            row.confirmed_at = datetime.now(UTC)
            outcome.status = "confirmed"
    elif row.status == "proposed" and team:
        twin = agreeing_proposal(session, claim.id, form, besides=row.id, other_team=team)
        if twin is not None:
            other_row, proposer = twin
            now = datetime.now(UTC)
            row.status, row.confirmed_by = "confirmed", f"equivalent:{other_row.id}"
            other_row.status, other_row.confirmed_by = "confirmed", f"equivalent:{row.id}"
            row.confirmed_at = other_row.confirmed_at = now
            who = (f"proposal {other_row.id} ({proposer.handle}, team {proposer.team}) and "
                   f"proposal {row.id} ({participant.handle}, team {team})")  # fmt: skip
            install_agreed(session, challenge_id, claim, paper, other_row.check,
                           editor=participant.handle,
                           reason=f"proposal {other_row.id} confirmed (equivalent:{row.id}, "
                           f"team {team})", origin=Origin.participant,
                           note=f"confirmed by agreement: {who}")  # fmt: skip
            outcome.status = "confirmed"
        elif agree_with_drafts(session, challenge_id, claim, paper, row, participant):
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
        team=confirmed_team(person), status=row.status, check=check,
        confirmed_by=row.confirmed_by,
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
    row.status, row.confirmed_by = "confirmed", f"organizer:{editor}"
    row.confirmed_at = datetime.now(UTC)
    accepted = Check.from_json(row.check).model_copy(
        update={"note": f"accepted by organizer {editor} (proposal {row.id} of {person.handle})"}
    )
    with contextlib.suppress(ClaimError):  # the claim has this very check already
        set_check(session, challenge_id, f"{paper.venue_id}/{claim.key}", accepted,
                  editor=editor, reason=f"proposal {row.id} accepted (organizer:{editor})",
                  origin=Origin.organizer)  # fmt: skip
    session.flush()
    return _view(row, claim, paper, person)
