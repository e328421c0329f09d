"""Outcomes: the current verdicts, per-claim consensus across logbooks, per-paper outcome rows,
statistics, and the authors' responses to findings; the derived per-paper tables that keep them
(:mod:`openrepro.outcomes.derived`)."""

from __future__ import annotations

from openrepro.outcomes.compute import claim_consensus, paper_outcomes, verdicts_by_day
from openrepro.outcomes.current import CurrentVerdict, current_verdicts, hidden_papers
from openrepro.outcomes.derived import rebuild as rebuild_derived
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
from openrepro.outcomes.responses import (
    RESPONSES,
    AuthorResponseView,
    Response,
    author_response_counts,
    author_responses,
)
from openrepro.outcomes.stats import compute_stats, render_markdown, render_tables

__all__ = [
    "CONSENSUS",
    "OUTCOME_ROWS",
    "RESPONSES",
    "AuthorResponseView",
    "ClaimConsensus",
    "Consensus",
    "CurrentVerdict",
    "OutcomeRow",
    "OverrideResult",
    "PaperOutcome",
    "ParticipantCredit",
    "Response",
    "Stats",
    "Totals",
    "author_response_counts",
    "author_responses",
    "claim_consensus",
    "compute_stats",
    "current_verdicts",
    "hidden_papers",
    "override_verdict",
    "paper_outcomes",
    "rebuild_derived",
    "render_markdown",
    "render_tables",
    "verdicts_by_day",
]
