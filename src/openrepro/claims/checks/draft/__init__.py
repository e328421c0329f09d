"""Drafting checks from a claim's quote by rules: common phrasings only, and no guessing.

:func:`draft_check` reads one quote and returns a :class:`Draft`: a grounded
:class:`~openrepro.claims.checks.records.Check` with ``origin=rules`` and the id of the rule that
made
it, or None with the reason no rule applies. A phrasing that is vague ("most", "in general",
"almost always", "noticeably") or that the vocabulary cannot state ("second best") gets no
check: an organizer, or the constrained LLM drafter, may write one.

The quote is split into clauses (sentences, ``;``, ``but``, ``while``, ``, then``); each clause
gets at most one relation, tried in this order (first match wins), and several clauses make an
``all_of``:

| rule | phrasing | relation |
| --- | --- | --- |
| D1 | "grows linearly / quadratically / logarithmically", "sublinear growth", "∝" | growth |
| D2 | "slope ... is positive", "as X increases, Y decreases", "increases steadily" | trend |
| D3 | "from A to B" (numbers) | change |
| D4 | "Nx faster / fewer / less", "reduces ... by Nx", "N% of the memory of" | ratio |
| D5 | "N% (absolute) improvement over", "N% better than", "+N points over", "2-6%" | difference |
| D6 | "within N of", "within +/- N" | comparable (tolerance N) |
| D7 | "at least / above / over / > / exceeds N", "at most / below / under / < / up to N" | bound |
| D8 | "achieves / reaches / is (about, ~) N" with a metric or a unit | equal |
| D9 | "comparable or higher", "equal or higher", "at least as well as" | ordering (>=) |
| D10 | "similar", "comparable", "roughly equivalent", "about the same", "on par" | comparable |
| D11 | "outperforms", "better / higher / lower than", "surpasses", "best / lowest" | ordering |
| V1 | "X a vs Y b (and Z c)", where no rule above uses every value | all_of of equal |

Right or silent (:mod:`.audit`, and docs/checks.md): before the rules, a claim
no check of this vocabulary states (a theorem, a rate, an exponent, a counted quantifier, a
rank, "up to N%") gets no check with a reason (``Draft.settled``); after them, a check that does
not use every number the claim reports, or that drops a quantifier over settings the claim does
not enumerate, is refused. :func:`audit_check` applies the latter to any drafter's check.

Before them (and before the vagueness test), rule **H1**: a perceptual phrasing ("visually",
"perceptual", "look(s)", "usable", "faithful", "human evaluators", "preferred by", "readable",
"realistic", "image quality") makes the whole quote a ``human`` check with a default question:
``preference`` (two sides) when it compares ("than", "over", "preferred", "compared to"),
else ``usable``; a percentage in the quote (":N% of the images") is its decision share.

Around a clause: "across / for / on all <datasets, sizes, ...>", "always", "for every k",
"on both <settings>" wrap it in ``for_all`` (open-ended for a variable such as "every k" or "all
sizes", finite otherwise), "can" wraps it in ``exists``, "both A and B <verb>" and "both in X and
Y" make an ``all_of`` of one copy per subject or metric.

Default readings of ambiguous phrases (documented in docs/checks.md):

- "reaches 88.1%", "achieves 61.52%": equality within :data:`DEFAULT_REL_TOL` (5 %);
- "about / roughly / approximately / ~ / around N": equality within :data:`APPROX_REL_TOL` (10 %);
- "8x faster" (no qualifier): at least 8, within 5 %; "about 8x faster": equal to 8 within 10 %;
- "N% better / faster / less" than a baseline: a relative difference ((a - b) / b = N / 100),
  except for metrics that are themselves rates in % (accuracy, success rate, F1, ECE, ...) and
  for "(absolute)" or "points", which are absolute differences of N points;
- "N% of the memory of B": a ratio a / b = N / 100;
- "at least / below N" (an explicit bound): no tolerance;
- "outperforms", "better": strictly better in the metric's direction (lower for error, loss,
  ECE, FID, C2ST, perplexity, memory, time, cost), decided with confidence over seeds;
- a group baseline ("all other methods", "the next best method") is one quantity: the judge
  binds the strongest rival to it.

One module per relation family: :mod:`.clauses` (the clause, its subject and baselines, the
shared words), :mod:`.settings` (is this number a setting? :func:`is_setting`, the one answer
the rules and the audit share; a claim's scale), :mod:`.trends` (D1, D2), :mod:`.changes`
(D3-D5), :mod:`.values` (D7, D8), :mod:`.comparisons` (D6, D9-D11), :mod:`.quantifiers`,
:mod:`.human` (H1), :mod:`.audit` (right or silent), :mod:`.gate` (:func:`confidence_gate`)
and :mod:`.rules` (the rules in order: :func:`draft_check`, :func:`draft_for_claim`).
"""

from __future__ import annotations

from openrepro.claims.checks.draft.audit import audit_check, is_aggregate_name
from openrepro.claims.checks.draft.clauses import Draft, direction_of
from openrepro.claims.checks.draft.gate import confidence_gate
from openrepro.claims.checks.draft.rules import draft_check, draft_for_claim
from openrepro.claims.checks.draft.settings import is_setting

__all__ = [
    "Draft",
    "audit_check",
    "confidence_gate",
    "direction_of",
    "draft_check",
    "draft_for_claim",
    "is_aggregate_name",
    "is_setting",
]
