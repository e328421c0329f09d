"""Grounding: every constant of a check appears in the claim's verbatim quote.

A :class:`~openrepro.claims.checks.records.Constant` is grounded in a quote when

1. its ``text`` occurs in the quote (after the presentation-only normalisation of
   :func:`openrepro.claims.text.normalize_with_map`: ligatures, whitespace, soft hyphens), and
2. the quote states a number there (:func:`openrepro.claims.values.find_numbers`, the one
   number reader of the claims) whose value is the constant's ``value``, or its hundredth when
   the number is a percentage (``"80%"`` grounds 80 and 0.8: a rate may be logged either way).

A check drafted by rules or by a model that fails grounding is no check (the drafters return
None with the reason); one written by an organizer is refused with a :class:`CheckError`.
"""

from __future__ import annotations

import math

from openrepro.claims.checks.records import Check, Constant
from openrepro.claims.text import normalize_with_map
from openrepro.claims.values import find_numbers
from openrepro.errors import CheckError

__all__ = ["grounding_problems", "is_grounded_constant", "require_grounded"]


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def is_grounded_constant(constant: Constant, quote: str) -> bool:
    """Whether ``constant`` is stated in ``quote`` (see the module docstring)."""
    text, _ = normalize_with_map(constant.text)
    hay, _ = normalize_with_map(quote)
    text = text.strip()
    if not text:
        return False
    position = hay.find(text)
    while position >= 0:
        for mention in find_numbers(hay):
            overlaps = mention.start < position + len(text) and position < mention.end
            if not overlaps:
                continue
            values = [mention.value, -mention.value]  # "drops by 5" may be written as -5
            if mention.unit == "%":
                values += [mention.value / 100, -mention.value / 100]
            if any(_close(constant.value, v) for v in values):
                return True
        position = hay.find(text, position + 1)
    return False


def grounding_problems(check: Check, quote: str | None = None) -> list[str]:
    """Each constant of ``check`` (nested checks included) not stated in ``quote`` (default: the
    check's own ``quote``), as a sentence; empty when the check is grounded."""
    source = check.quote if quote is None else quote
    problems: list[str] = []
    if check.constants() and not source.strip():
        return ["the check has constants but no quote to ground them in"]
    for constant in check.constants():
        if not is_grounded_constant(constant, source):
            problems.append(
                f"constant {constant.value:g} ({constant.text!r}) is not stated in the quote"
            )
    return problems


def require_grounded(check: Check, quote: str | None = None) -> Check:
    """``check`` itself when grounded, else a :class:`CheckError` naming every problem."""
    problems = grounding_problems(check, quote)
    if problems:
        raise CheckError("check is not grounded: " + "; ".join(problems))
    return check
