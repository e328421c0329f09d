"""What the judge will bind in a stored logbook, per claim and quantity, shown when it is
submitted (``openrepro submit``) so that a participant sees at once which quantities are bound
and how: by exact key, by the evidence map, by name match, or not at all (and why).

The bindings are those of :func:`~openrepro.evidence.binding.bind_claim` on the stored record
and the stored files, with the stored replays and attestations: what ``openrepro judge`` will
use, not a preview computed another way.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field
from sqlalchemy import select

from openrepro.challenge import ChallengeContext
from openrepro.claims.service import claim_view
from openrepro.evidence.binding import bind_claim
from openrepro.evidence.checks import stored_levels
from openrepro.evidence.gather import measurements
from openrepro.evidence.records import describe_pointer
from openrepro.logbooks.records import LogbookRecord
from openrepro.logbooks.service import load_logbook, locator
from openrepro.logbooks.submit import SubmitReport, submit_logbook
from openrepro.store import Claim, Logbook, Paper

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
    quantities: list[QuantityBinding] = Field(default_factory=list)


class BoundSubmitReport(SubmitReport):
    """The submit report, with what the judge will bind for each claim of the paper."""

    bindings: list[ClaimBindings] = Field(default_factory=list)


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
        views = [claim_view(row, paper.venue_id) for row in rows]
        levels = stored_levels(session, logbook_id)
    locate = locator(ctx.settings.resolved_files_dir())
    out: list[ClaimBindings] = []
    for view in views:
        if view.check is None:
            out.append(ClaimBindings(claim=view.id))
            continue
        found = [m for m in measurements(record, view.id) if not m.metric.startswith("scale/")]
        bound = bind_claim(record, view.id, view.check, found, claim_key=view.key, locate=locate,
                           levels=levels, hints=[v.metric for v in view.reported])  # fmt: skip
        out.append(ClaimBindings(
            claim=view.id, check=view.check.describe(),
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
    stored logbook (a malformed evidence map refuses the submission before anything is stored)."""
    report = submit_logbook(ctx, source, handle=handle, paper=paper)
    bindings, warnings = logbook_bindings(ctx, report.logbook_id)
    return BoundSubmitReport(**{**report.model_dump(), "bindings": bindings,
                                "warnings": [*report.warnings, *warnings]})  # fmt: skip
