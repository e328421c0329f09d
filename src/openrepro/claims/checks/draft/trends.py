"""Rates and trends: rules D1 (growth) and D2 (trend).

Part of :mod:`openrepro.claims.checks.draft` (see its docstring for the rules)."""

from __future__ import annotations

import re

from openrepro.claims.checks.draft.clauses import _Clause, _quantities, _subject, direction_of
from openrepro.claims.checks.records import (
    Check,
    GrowthLaw,
    Relation,
    Trend,
)

# -- the rules ------------------------------------------------------------------------------


def _growth(c: _Clause) -> Check | None:
    m = re.search(
        r"\bgrow(?:s|th)?\s+(?:\(?roughly\)?\s+|approximately\s+)?(?P<a>linearly|quadratically|"
        r"logarithmically|sublinearly)|\b(?P<b>linear|quadratic|sublinear|logarithmic)\s+growth|"
        r"\u221d",
        c.text,
        re.IGNORECASE,
    )
    if not m:
        return None
    word = (m.group("a") or m.group("b") or "linear").lower()
    law = {
        "linear": GrowthLaw.linear,
        "linearly": GrowthLaw.linear,
        "quadratic": GrowthLaw.quadratic,
        "quadratically": GrowthLaw.quadratic,
        "logarithmic": GrowthLaw.logarithmic,
        "logarithmically": GrowthLaw.logarithmic,
        "sublinear": GrowthLaw.sublinear,
        "sublinearly": GrowthLaw.sublinear,
    }[word]
    subject = _subject(c)
    if re.search(r"\bslower than\b", c.text, re.I):
        return None  # a comparison of growth rates: not one law
    c.rules.append("D1")
    return Check(
        relation=Relation.growth,
        quantities=_quantities([subject], c),
        subject=subject,
        law=law,
        direction=direction_of(c.text),
        sweep=_sweep_variable(c.text),
    )


def _sweep_variable(text: str) -> str:
    m = re.search(
        r"\b(?:as|with|over|across)\s+(?:the\s+)?(?P<v>(?:number of \w+|[\w-]+(?: size)?"
        r"|time|training|the course of training))",
        text,
        re.I,
    )
    return m.group("v") if m else ""


def _trend(c: _Clause) -> Check | None:
    t = c.text
    trend: Trend | None = None
    slope = re.search(r"\bslope\b.*\bis\s+(?P<s>positive|negative)\b", t, re.I)
    if slope:
        trend = Trend.increasing if slope.group("s").lower() == "positive" else Trend.decreasing
    else:
        m = re.search(
            r"\b(?:as|when)\s+[\w\s-]+?\s+(?:increases?|grows?),\s*[^,]*?\b(?P<v>increases?|"
            r"decreases?|drops?|rises?|improves?|grows?)\b|"
            r"\b(?P<w>increas\w*|decreas\w*|drops?|rises?|improv\w*|grows?)\s+(?:\w+\s+){0,2}?"
            r"(?:steadily|monotonically|over time|over the course|during training|throughout|"
            r"with (?:time|iterations|more|larger|increasing)|sharply|rapidly|as)\b|"
            r"\b(?:steadily|monotonically|consistently|rapidly|sharply)\s+(?P<x>increas\w*|"
            r"decreas\w*|improv\w*)\b|"
            r"\blarger\s+[\w\s-]+?\s+result\s+in\s+(?P<y>lower|larger|higher|smaller)\b",
            t,
            re.I,
        )
        if not m:
            return None
        word = (m.group("v") or m.group("w") or m.group("x") or m.group("y") or "").lower()
        rising = word.startswith(("increas", "rise", "improv", "grow", "larger", "higher"))
        trend = Trend.increasing if rising else Trend.decreasing
        if re.search(r"\b(?:than|compared to|over the baseline)\b", t, re.I) and not m.group("y"):
            return None  # "increases ... compared to B" is a comparison, not a trend
    subject = _subject(c)
    c.rules.append("D2")
    return Check(
        relation=Relation.trend,
        quantities=_quantities([subject], c),
        subject=subject,
        trend=trend,
        direction=direction_of(t),
        sweep=_sweep_variable(t),
    )
