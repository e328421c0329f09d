"""Typed records of the re-check queue: entries, reasons, findings, runs and decisions."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, Field

from openrepro.llm import Usage

__all__ = [
    "DECISIONS",
    "REASONS",
    "STATUSES",
    "CheckName",
    "Decision",
    "DecisionView",
    "Finding",
    "QueueEntry",
    "QueueReason",
    "Reason",
    "RecheckReport",
    "Status",
]

#: Why a claim is in the queue.
Reason = Literal[
    "consensus_falsified",
    "consensus_contested",
    "testimony_disagrees",
    "unit_mismatch",
    "finite_horizon",
    "injection_suspected",
    "testimony_falsification",
]
REASONS: tuple[Reason, ...] = get_args(Reason)
#: The flags of a verdict that put its claim in the queue (a subset of the judge's flags).
FLAG_REASONS: tuple[Reason, ...] = (
    "testimony_disagrees",
    "unit_mismatch",
    "finite_horizon",
    "injection_suspected",
)
Decision = Literal["confirmed", "rejected", "needs-more-evidence"]
DECISIONS: tuple[Decision, ...] = get_args(Decision)
#: ``open`` (never re-checked), ``checked`` (re-checked, not decided), else the newest decision.
Status = Literal["open", "checked", "confirmed", "rejected", "needs-more-evidence"]
STATUSES: tuple[Status, ...] = get_args(Status)
CheckName = Literal[
    "pointer",
    "normalisation",
    "unit",
    "scale",
    "failed_run",
    "partial_run",
    "arithmetic",
    "testimony",
    "llm",
]


class QueueReason(BaseModel):
    """One reason a claim is queued; ``logbook_id``/``verdict_id`` when a verdict raised it."""

    reason: Reason
    logbook_id: int | None = None
    verdict_id: int | None = None
    participant: str | None = None
    detail: str = ""


class Finding(BaseModel):
    """What one check of a re-check found.

    ``severity``: ``undermines`` = a reason the falsification may be wrong; ``supports`` = the
    check confirms the judge's reading; ``info`` = context. ``source`` ``llm`` findings are the
    adversarial model's words: shown to organizers, never a decision by themselves.
    """

    check: CheckName
    source: Literal["code", "llm"] = "code"
    severity: Literal["undermines", "supports", "info"] = "info"
    logbook_id: int | None = None
    verdict_id: int | None = None
    message: str
    data: dict[str, Any] = Field(default_factory=dict)


class RecheckReport(BaseModel):
    """One stored re-check run of a queued claim."""

    id: int
    claim: str  # "<paper venue id>/<key>"
    actor: str = ""
    model: str = ""
    prompt_version: str = ""
    findings: list[Finding] = Field(default_factory=list)
    summary: str = ""
    usage: Usage = Field(default_factory=Usage)
    created_at: datetime | None = None

    @property
    def undermining(self) -> list[Finding]:
        """Findings by code that give a reason the falsification may be wrong."""
        return [f for f in self.findings if f.severity == "undermines" and f.source == "code"]


class DecisionView(BaseModel):
    id: int
    claim: str
    decision: Decision
    reason: str
    editor: str
    verdict_ids: list[int] = Field(default_factory=list)  # verdicts whose value it changed
    created_at: datetime | None = None


class QueueEntry(BaseModel):
    """One claim in the re-check queue (what `recheck ls` lists and the board shows)."""

    claim_id: int
    claim: str  # "<paper venue id>/<key>"
    paper_id: int
    paper: str  # venue id
    title: str = ""
    text: str = ""
    kind: str = ""
    consensus: str = ""
    status: Status = "open"
    reasons: list[QueueReason] = Field(default_factory=list)
    logbooks: list[int] = Field(default_factory=list)  # logbooks with a current verdict
    runs: int = 0
    last_run_at: datetime | None = None
    undermining: list[str] = Field(default_factory=list)  # newest run: checks that undermine
    decision: DecisionView | None = None

    @property
    def reason_codes(self) -> list[str]:
        return list(dict.fromkeys(r.reason for r in self.reasons))
