"""What the judge will bind in a stored logbook, per claim and quantity, shown when it is
submitted (``openrepro submit``) and in ``openrepro status``, so that a participant sees at once
which quantities are bound and how: by exact key, by the evidence map, by name match, or not at
all (and why).

The bindings are those of :func:`~openrepro.evidence.binding.bind_claim` on the stored record
and the stored files, with the stored replays and attestations: what ``openrepro judge`` will
use, not a preview computed another way; the check bound is the one the judge will use for the
logbook's participant (its own proposal where the claim has no organizer's check).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from openrepro.challenge import ChallengeContext
from openrepro.claims.proposals import effective_check, open_proposals
from openrepro.claims.service import claim_view
from openrepro.evidence.binding import bind_claim
from openrepro.evidence.checks import stored_levels
from openrepro.evidence.gather import measurements
from openrepro.evidence.records import describe_pointer
from openrepro.intake.records import ClaimBindings, QuantityBinding
from openrepro.logbooks.records import LogbookRecord
from openrepro.logbooks.service import load_logbook, locator
from openrepro.store import Claim, Logbook, Paper

__all__ = ["bindings_in", "logbook_bindings"]


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


def bindings_in(
    session: Session, ctx: ChallengeContext, logbook_id: int
) -> tuple[list[ClaimBindings], list[str]]:
    """Per active claim of the logbook's paper, how each quantity of its check binds; and a
    warning per evidence-map entry that names no claim or quantity. Read in the caller's
    transaction (``session``), so a submission sees what it stored before it commits."""
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


def logbook_bindings(
    ctx: ChallengeContext, logbook_id: int
) -> tuple[list[ClaimBindings], list[str]]:
    """:func:`bindings_in` of a stored logbook, in a (read-only) transaction of its own."""
    with ctx.store.session() as session:
        return bindings_in(session, ctx, logbook_id)
