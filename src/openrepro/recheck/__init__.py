"""The falsification re-check queue: which claims need a second, adversarial look; code checks
(normalisation, units, scale, failed or partial runs, arithmetic, pointers) and an optional
differently-prompted LLM; organizer decisions that flow into outcomes as ``recheck`` edits."""

from openrepro.recheck.checks import code_checks
from openrepro.recheck.queue import get_entry, recheck_queue
from openrepro.recheck.records import (
    DECISIONS,
    REASONS,
    STATUSES,
    DecisionView,
    Finding,
    QueueEntry,
    QueueReason,
    RecheckReport,
)
from openrepro.recheck.service import PROMPT_VERSION, decide, run_recheck
from openrepro.recheck.verdicts import current_verdicts

__all__ = [
    "DECISIONS",
    "PROMPT_VERSION",
    "REASONS",
    "STATUSES",
    "DecisionView",
    "Finding",
    "QueueEntry",
    "QueueReason",
    "RecheckReport",
    "code_checks",
    "current_verdicts",
    "decide",
    "get_entry",
    "recheck_queue",
    "run_recheck",
]
