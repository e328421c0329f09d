"""The falsification re-check queue: which claims need a second, adversarial look; code checks
(normalisation, units, scale, failed or partial runs, arithmetic, pointers) and an optional
differently-prompted LLM; organizer decisions that flow into outcomes as ``recheck`` edits."""

from openrepro.recheck.checks import code_checks
from openrepro.recheck.queue import flagged_verdicts, get_entry, latest_decisions, recheck_queue
from openrepro.recheck.records import (
    DECISIONS,
    FLAG_REASONS,
    REASONS,
    STATUSES,
    DecisionView,
    Finding,
    QueueEntry,
    QueueReason,
    RecheckReport,
)
from openrepro.recheck.service import PROMPT_VERSION, decide, run_recheck

__all__ = [
    "DECISIONS",
    "FLAG_REASONS",
    "PROMPT_VERSION",
    "REASONS",
    "STATUSES",
    "DecisionView",
    "Finding",
    "QueueEntry",
    "QueueReason",
    "RecheckReport",
    "code_checks",
    "decide",
    "flagged_verdicts",
    "get_entry",
    "latest_decisions",
    "recheck_queue",
    "run_recheck",
]
