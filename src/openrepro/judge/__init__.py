"""The judge: per-claim verdicts from evidence that code has checked (docs/design.md §4).

gather (evidence items, measurements, pointer checks, injection detection) → compare and decide
(the documented decision table) → engine (deterministic path first, LLM extraction only for
logbooks that did not log the claim's values) → service (stored, idempotent verdicts).
"""

from openrepro.judge.decide import Comparison, compare, decide
from openrepro.judge.engine import JudgedClaim, judge_claim, judge_config
from openrepro.judge.gather import check_pointer, evidence_items, looks_like_injection, measurements
from openrepro.judge.records import FLAGS, VERDICTS, Decision, EvidenceItem, Measurement, Pointer
from openrepro.judge.service import JudgeReport, judge_logbooks

__all__ = [
    "FLAGS",
    "VERDICTS",
    "Comparison",
    "Decision",
    "EvidenceItem",
    "JudgeReport",
    "JudgedClaim",
    "Measurement",
    "Pointer",
    "check_pointer",
    "compare",
    "decide",
    "evidence_items",
    "judge_claim",
    "judge_config",
    "judge_logbooks",
    "looks_like_injection",
    "measurements",
]
