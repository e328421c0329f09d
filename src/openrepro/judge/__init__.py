"""The judge: per-claim verdicts from evidence that code has checked (docs/design.md §4).

The evidence itself (records, gathering, comparison, the decision table, provenance levels) is
:mod:`openrepro.evidence`; this package is the workflow over it: engine (deterministic path
first, LLM extraction only for logbooks that did not log the claim's values) → service (stored,
idempotent verdicts) → evaluate (judge-eval against labels).
"""

from openrepro.judge.engine import JudgedClaim, judge_claim, judge_config
from openrepro.judge.service import JudgeReport, judge_logbooks

__all__ = [
    "JudgeReport",
    "JudgedClaim",
    "judge_claim",
    "judge_config",
    "judge_logbooks",
]
