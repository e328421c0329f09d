"""Rule H1: perceptual phrasings become ``human`` checks.

Part of :mod:`openrepro.claims.checks.draft` (see its docstring for the rules)."""

from __future__ import annotations

import re

from openrepro.claims.checks.grounding import grounding_problems
from openrepro.claims.checks.records import (
    Check,
    Constant,
    HumanJudgement,
    HumanScale,
    Origin,
    Relation,
)
from openrepro.claims.values import (
    Scale,
    find_numbers,
)

_PERCEPTUAL = re.compile(
    r"\b(?:visually|visual(?=\s+(?:quality|fidelity|appearance|inspection|comparison|"
    r"results?|similarity|artifacts?|realism))|perceptual(?:ly)?|perceiv\w*|looks?(?:\s+(?:good|better|worse|"
    r"natural|similar|the same))|usable|unusable|faithful\w*|human (?:evaluat\w*|judg\w*|"
    r"raters?|study|studies|preference\w*(?!\s+(?:labels?|data|annotations?|feedback|pairs)))|"
    r"preferred by|readab\w*|realistic|image quality|"
    r"recogni[sz]able|legib\w*|fluen(?:t|cy)|coheren(?:t|ce))\b",
    re.IGNORECASE,
)
_COMPARES = re.compile(
    r"\b(?:than|over|prefer\w*|compared (?:to|with)|versus|vs\.?|relative to)\b", re.IGNORECASE
)


def _human(text: str) -> Check | None:
    """Rule H1 (module docstring): a human check for a perceptual phrasing, or None."""
    if not _PERCEPTUAL.search(text):
        return None
    preference = bool(_COMPARES.search(text))
    shares = [m for m in find_numbers(text) if m.unit == "%" and 0 < m.value < 100]
    constant = Constant(value=shares[0].value, text=shares[0].text) if len(shares) == 1 else None
    scale = HumanScale.preference if preference else HumanScale.usable
    question = (
        "Which of the two outputs is better?"
        if preference
        else "Is this output usable for what it is meant for?"
    )
    return Check(
        relation=Relation.human,
        constant=constant,
        human=HumanJudgement(question=question, scale=scale),
        note="judged by people: " + text[:200],
    )


def _human_check(human: Check, quote: str, claim_id: str, scale: Scale | None) -> Check:
    human = human.model_copy(
        update={"origin": Origin.rules, "quote": quote, "rule": "H1", "scale": scale or Scale()}
    )
    if grounding_problems(human, quote):
        human = human.model_copy(update={"constant": None})
    return human.for_claim(claim_id) if claim_id else human
