"""Checks: the typed, grounded relation a claim asserts, drafted by rules (or a model) and
reviewed by organizers. Code evaluates a check over bound evidence in
:mod:`openrepro.evidence.relations`.

    draft = draft_check(quote)                   # rules; Draft(check=None, reason=...) if none
    result = evaluate(draft.check, [Bound(quantity="acc", seeds=[95.1, 95.3, 94.9])])
    result.verdict, result.rule, result.test, result.numbers
"""

from openrepro.claims.checks.draft import (
    Draft,
    audit_check,
    confidence_gate,
    direction_of,
    draft_check,
    draft_for_claim,
)
from openrepro.claims.checks.grounding import (
    grounding_problems,
    is_grounded_constant,
    require_grounded,
)
from openrepro.claims.checks.llm_draft import (
    PROMPT_VERSION,
    LLMCheckDraft,
    LLMCheckPart,
    check_from_llm,
    draft_check_llm,
    draft_with_fallback,
)
from openrepro.claims.checks.records import (
    APPROX_DIFF_REL_TOL,
    APPROX_REL_TOL,
    CHECK_FORMAT,
    DEFAULT_HUMAN_SHARE,
    DEFAULT_REL_TOL,
    HUMAN_ANSWERS,
    IDENTITY_ABS_TOL,
    TRUSTED_ORIGINS,
    Check,
    Comparator,
    Constant,
    Direction,
    GrowthLaw,
    HumanJudgement,
    HumanScale,
    Order,
    Origin,
    Quantity,
    Rate,
    Relation,
    Tolerance,
    Trend,
    metric_key,
    sweep_metric,
    sweeps_of,
)
from openrepro.claims.checks.vetting import (
    proposal_problems,
    require_meaningful,
    vacuity_problems,
)

__all__ = [
    "APPROX_DIFF_REL_TOL",
    "APPROX_REL_TOL",
    "CHECK_FORMAT",
    "DEFAULT_HUMAN_SHARE",
    "DEFAULT_REL_TOL",
    "HUMAN_ANSWERS",
    "IDENTITY_ABS_TOL",
    "PROMPT_VERSION",
    "TRUSTED_ORIGINS",
    "Check",
    "Comparator",
    "Constant",
    "Direction",
    "Draft",
    "GrowthLaw",
    "HumanJudgement",
    "HumanScale",
    "LLMCheckDraft",
    "LLMCheckPart",
    "Order",
    "Origin",
    "Quantity",
    "Rate",
    "Relation",
    "Tolerance",
    "Trend",
    "audit_check",
    "check_from_llm",
    "confidence_gate",
    "direction_of",
    "draft_check",
    "draft_check_llm",
    "draft_for_claim",
    "draft_with_fallback",
    "grounding_problems",
    "is_grounded_constant",
    "metric_key",
    "proposal_problems",
    "require_grounded",
    "require_meaningful",
    "sweep_metric",
    "sweeps_of",
    "vacuity_problems",
]
