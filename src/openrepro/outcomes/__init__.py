"""Outcomes: per-claim consensus across logbooks, per-paper outcome rows, statistics."""

from __future__ import annotations

from openrepro.outcomes.compute import claim_consensus, hidden_papers, paper_outcomes
from openrepro.outcomes.overrides import OverrideResult, override_verdict
from openrepro.outcomes.records import (
    CONSENSUS,
    OUTCOME_ROWS,
    ClaimConsensus,
    Consensus,
    OutcomeRow,
    PaperOutcome,
    ParticipantCredit,
    Stats,
    Totals,
)
from openrepro.outcomes.stats import compute_stats, render_markdown

__all__ = [
    "CONSENSUS",
    "OUTCOME_ROWS",
    "ClaimConsensus",
    "Consensus",
    "OutcomeRow",
    "OverrideResult",
    "PaperOutcome",
    "ParticipantCredit",
    "Stats",
    "Totals",
    "claim_consensus",
    "compute_stats",
    "hidden_papers",
    "override_verdict",
    "paper_outcomes",
    "render_markdown",
]
