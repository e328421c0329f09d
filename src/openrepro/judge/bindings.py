"""What the judge will bind in a stored logbook, per claim and quantity, shown when it is
submitted (``openrepro submit``) so that a participant sees at once which quantities are bound
and how: by exact key, by the evidence map, by name match, or not at all (and why).

The bindings are those of :func:`~openrepro.evidence.binding.bind_claim` on the stored record
and the stored files, with the stored replays and attestations: what ``openrepro judge`` will
use, not a preview computed another way.

A ``checks.json`` at the logbook's root holds the participant's proposed checks
(:mod:`openrepro.claims.proposals`): each is validated and grounded when the logbook is
submitted, stored or refused with the reason, and the bindings shown are those of the check the
judge will use for this participant (its own proposal where the claim has no organizer's check).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims.proposals import (
    ProposalOutcome,
    effective_check,
    open_proposals,
    parse_checks_file,
    propose_checks,
)
from openrepro.claims.service import claim_view
from openrepro.errors import CheckError
from openrepro.evidence.binding import bind_claim
from openrepro.evidence.checks import stored_levels
from openrepro.evidence.gather import measurements
from openrepro.evidence.records import describe_pointer
from openrepro.logbooks.limits import MAX_CHECKS_FILE_BYTES
from openrepro.logbooks.manifest import CHECKS_FILE
from openrepro.logbooks.records import LogbookRecord
from openrepro.logbooks.service import load_logbook, locator
from openrepro.logbooks.submit import SubmitReport, submit_logbook
from openrepro.store import Claim, Logbook, Paper, Participant
from openrepro.store.judge_queue import check_capacity, enqueue, queue_position

__all__ = [
    "BoundSubmitReport",
    "ClaimBindings",
    "QuantityBinding",
    "logbook_bindings",
    "submit_and_bind",
]


class QuantityBinding(BaseModel):
    quantity: str
    how: str  # key | map | match | unbound
    pointers: list[str] = Field(default_factory=list)  # as people read them
    values: list[float] = Field(default_factory=list)
    reason: str = ""
    flags: list[str] = Field(default_factory=list)


class ClaimBindings(BaseModel):
    claim: str
    check: str = ""  # the check in words; "" for a claim without one
    #: whose check: organizer, participant or confirmed (confirmed by agreement), rules, llm (a
    #: model's drafted check: provisional); "proposal" for the participant's own unconfirmed
    #: proposal (the verdict is then provisional)
    origin: str = ""
    quantities: list[QuantityBinding] = Field(default_factory=list)


class BoundSubmitReport(SubmitReport):
    """The submit report, with what became of the proposed checks (``checks.json``) and what
    the judge will bind for each claim of the paper."""

    proposals: list[ProposalOutcome] = Field(default_factory=list)
    bindings: list[ClaimBindings] = Field(default_factory=list)
    #: the logbook's place in the judge queue (1: next; None: nothing to judge)
    queue_position: int | None = None
    #: claims queued for judging by this submission
    queued: int = 0


def _map_warnings(
    record: LogbookRecord, claims: list[ClaimBindings], keys: dict[str, str]
) -> list[str]:
    """Evidence-map entries that name no claim of the paper, or no quantity of its check."""
    if record.evidence_map is None:
        return []
    found: list[str] = []
    by_id = {c.claim: c for c in claims}
    for name, quantities in record.evidence_map.claims.items():
        claim = by_id.get(name) or by_id.get(keys.get(name, ""))
        if claim is None:
            found.append(f"evidence map: {name!r} is not a claim of this paper")
            continue
        known = {q.quantity for q in claim.quantities}
        for quantity in quantities:
            if quantity not in known:
                found.append(f"evidence map: claim {claim.claim} has no quantity {quantity!r}"
                             f" (its check has {', '.join(sorted(known)) or 'none'})")  # fmt: skip
    return found


def logbook_bindings(
    ctx: ChallengeContext, logbook_id: int
) -> tuple[list[ClaimBindings], list[str]]:
    """Per active claim of the logbook's paper, how each quantity of its check binds; and a
    warning per evidence-map entry that names no claim or quantity."""
    with ctx.store.session() as session:
        record = load_logbook(session, ctx.challenge_id, logbook_id)
        book = session.get(Logbook, logbook_id)
        assert book is not None
        paper = session.get(Paper, book.paper_id)
        assert paper is not None
        rows = session.scalars(
            select(Claim).where(Claim.paper_id == paper.id, Claim.status == "active")
            .order_by(Claim.id)
        ).all()  # fmt: skip
        own = open_proposals(session, [row.id for row in rows], [book.participant_id])
        views, origins = [], []
        for row in rows:
            check, provisional = effective_check(row, own.get((row.id, book.participant_id)))
            views.append(claim_view(row, paper.venue_id).model_copy(update={"check": check}))
            own_proposal = provisional and check is not None and check.origin.value == "participant"
            origins.append("proposal" if own_proposal else (check.origin.value if check else ""))
        levels = stored_levels(session, logbook_id)
    locate = locator(ctx.settings.resolved_files_dir())
    out: list[ClaimBindings] = []
    for view, origin in zip(views, origins, strict=True):
        if view.check is None:
            out.append(ClaimBindings(claim=view.id))
            continue
        found = [m for m in measurements(record, view.id) if not m.metric.startswith("scale/")]
        bound = bind_claim(record, view.id, view.check, found, claim_key=view.key, locate=locate,
                           levels=levels, hints=[v.metric for v in view.reported])  # fmt: skip
        out.append(ClaimBindings(
            claim=view.id, check=view.check.describe(), origin=origin,
            quantities=[
                QuantityBinding(quantity=b.quantity, how=b.how, values=b.values, reason=b.reason,
                                pointers=[describe_pointer(p) for p in b.pointers],
                                flags=list(b.flags))
                for b in bound.bindings
            ],
        ))  # fmt: skip
    keys = {view.key: view.id for view in views}
    return out, _map_warnings(record, out, keys)


def submit_and_bind(
    ctx: ChallengeContext, source: Path | str, *, handle: str | None = None,
    paper: str | None = None,
) -> BoundSubmitReport:  # fmt: skip
    """:func:`~openrepro.logbooks.submit.submit_logbook`, then :func:`logbook_bindings` of the
    stored logbook (a malformed evidence map refuses the submission before anything is stored);
    the logbook's claims are queued for the judge workers (:mod:`openrepro.judge.worker`), and
    a participant with ``queue_max_per_participant`` claims waiting is refused first (HTTP 429)."""
    with ctx.store.session() as session:
        person = session.scalar(
            select(Participant.id).where(
                Participant.challenge_id == ctx.challenge_id, Participant.handle == handle
            )
        ) if handle else None  # fmt: skip
        check_capacity(session, person, ctx.settings.queue_max_per_participant)
    report = submit_logbook(ctx, source, handle=handle, paper=paper)
    proposals, problems = store_proposals(ctx, report.logbook_id)
    with ctx.store.session() as session:
        queued = enqueue(session, [report.logbook_id], reason="submission")
    with ctx.store.session() as session:
        position = queue_position(session, report.logbook_id)
    bindings, warnings = logbook_bindings(ctx, report.logbook_id)
    return BoundSubmitReport(**{**report.model_dump(), "bindings": bindings,
                                "proposals": proposals, "queue_position": position,
                                "queued": queued,
                                "warnings": [*report.warnings, *problems, *warnings]})  # fmt: skip


def store_proposals(
    ctx: ChallengeContext, logbook_id: int
) -> tuple[list[ProposalOutcome], list[str]]:
    """The proposals of the stored logbook's ``checks.json``, validated, grounded and stored
    for its participant (:func:`openrepro.claims.proposals.propose_checks`); a file that cannot
    be read gives a warning naming the problem and no proposal (the logbook stays stored)."""
    locate = locator(ctx.settings.resolved_files_dir())
    with ctx.store.session() as session:
        record = load_logbook(session, ctx.challenge_id, logbook_id)
        ref = next((f for f in record.files if f.path == CHECKS_FILE), None)
        if ref is None:
            return [], []
        path = locate(ref)
        try:
            if path is None:
                raise CheckError(f"{CHECKS_FILE}: the stored file is missing")
            if ref.size > MAX_CHECKS_FILE_BYTES:
                raise CheckError(f"{CHECKS_FILE}: {ref.size:,} bytes, above the limit of "
                                 f"{MAX_CHECKS_FILE_BYTES:,}")  # fmt: skip
            found = parse_checks_file(path.read_text(encoding="utf-8", errors="replace"))
        except CheckError as exc:
            return [], [f"{exc}; no check proposal was taken"]
        book = session.get(Logbook, logbook_id)
        assert book is not None
        paper, person = (
            session.get(Paper, book.paper_id),
            session.get(Participant, book.participant_id),
        )
        assert paper is not None and person is not None
        return propose_checks(session, ctx.challenge_id, person, paper, found,
                              logbook_id=logbook_id), []  # fmt: skip
