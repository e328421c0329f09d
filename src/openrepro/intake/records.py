"""The records a submission answers with and a participant reads back, one home for the CLI,
the board's API and a participant's client of a board (:mod:`openrepro.remote`):

* :class:`BoundSubmitReport`: what ``openrepro submit`` prints and ``POST /api/v1/logbooks``
  answers: what was stored, evidence vs testimony, what became of the proposed checks, how each
  claim's quantities bind (:class:`ClaimBindings`, :class:`QuantityBinding`) and the logbook's
  place in the judge queue;
* :class:`ParticipantStatus`: what ``openrepro status`` shows and ``GET /api/v1/me/logbooks``
  answers: a participant's logbooks, each claim's verdict, the rule that decided it, its
  bindings and its re-check state (a local challenge folder builds the same record).
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from openrepro.claims.proposals import ProposalOutcome
from openrepro.logbooks.submit import SubmitReport

__all__ = [
    "BoundSubmitReport",
    "ClaimBindings",
    "ClaimStatus",
    "LogbookStatus",
    "ParticipantStatus",
    "QuantityBinding",
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


class ClaimStatus(BaseModel):
    claim: str  # "<paper venue id>/<key>"
    #: the current verdict (organizer edits applied); None while the claim is not judged yet
    verdict: str | None = None
    judge_value: str | None = None
    provenance: str = ""
    flags: list[str] = Field(default_factory=list)
    #: the claim's check in words (the rule its verdict is decided by); "" without a check
    rule: str = ""
    rationale: str = ""
    bindings: list[QuantityBinding] = Field(default_factory=list)
    #: the claim's state in the falsification re-check queue (open, checked, confirmed,
    #: rejected, needs-more-evidence); None when it is not queued
    recheck: str | None = None
    #: the judge's verified rests on evidence below the challenge's min_provenance_verified:
    #: it counts as inconclusive (shown, not counted)
    below_minimum: bool = False
    #: the judge queue: "queued" or "judging" while a verdict is due (a new logbook, a changed
    #: check, an answer), "failed" when judging it failed (``queue_error`` says why), else
    #: "judged" once it has a verdict ("" before anything was queued)
    queue: str = ""
    queue_error: str = ""
    #: when its current verdict was given
    judged_at: datetime | None = None


class LogbookStatus(BaseModel):
    logbook_id: int
    paper: str
    title: str = ""
    revision: str
    submitted_at: datetime | None = None
    claims: list[ClaimStatus] = Field(default_factory=list)
    #: the logbook's place in the judge queue (None: nothing of it waits)
    queue_position: int | None = None

    @property
    def settled(self) -> bool:
        """Nothing of this logbook waits in the judge queue (every claim judged, failed, or
        never queued: nothing is coming for it)."""
        return all(c.queue not in ("queued", "judging") for c in self.claims)


class ParticipantStatus(BaseModel):
    handle: str
    server: str = ""  # the board's URL, "" for a local challenge folder
    #: Whether this participant's verdicts count in consensus, outcomes and credit: not while
    #: self-registered under `open` registration without a confirmed team (shown, not counted).
    counted: bool = True
    note: str = ""
    #: the challenge's min_provenance_verified: the weakest evidence a verified counts from
    min_provenance_verified: str = ""
    logbooks: list[LogbookStatus] = Field(default_factory=list)
