"""The judge: per-claim verdicts from evidence that code has checked (docs/design.md §4).

The evidence itself (records, gathering, comparison, the decision table, provenance levels) is
:mod:`openrepro.evidence`; this package is the workflow over it: the judges of a run as one
value (:class:`Judges`, opened lazily) → engine (one :class:`JudgeCase` at a time, by its
check; a model only chooses among numbered pointers) → service (stored, idempotent verdicts;
:func:`stale` says when one is judged again) → evaluate (judge-eval against labels).
"""

from openrepro.judge.engine import JudgeCase, JudgedClaim, judge_claim
from openrepro.judge.judges import Judges, judge_config
from openrepro.judge.service import JudgeReport, judge_logbooks
from openrepro.judge.stale import StaleVerdict, stale

__all__ = [
    "JudgeCase",
    "JudgeReport",
    "JudgedClaim",
    "Judges",
    "StaleVerdict",
    "judge_claim",
    "judge_config",
    "judge_logbooks",
    "stale",
]
