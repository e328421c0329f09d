"""Quantifiers around a clause: "across all <datasets>", "on both <settings>", "for every k".

Part of :mod:`openrepro.claims.checks.draft` (see its docstring for the rules)."""

from __future__ import annotations

import re

from openrepro.claims.checks.draft.clauses import _OPEN_ENDED, _UNIVERSAL, _Clause
from openrepro.claims.checks.draft.comparisons import _LEADING
from openrepro.claims.checks.records import (
    Check,
    Relation,
)
from openrepro.claims.values import (
    find_numbers,
)

_METRIC_WORD = (
    r"accuracy|ECE|F1|memory|training|inference|clean|robust|loss|gradient norm|"
    r"time|precision|recall|prey|predator"
)
_BOTH_METRICS = re.compile(
    rf"\b(?:both\s+)?(?:in\s+|during\s+|of\s+|on\s+)?(?:terms of\s+)?(?:both\s+)?(?:average\s+)?"
    rf"(?P<a>{_METRIC_WORD})(?:\s+scores?)?\s+and\s+(?:on\s+)?(?:average\s+)?(?P<b>{_METRIC_WORD})"
    r"(?:\s+scores?)?\b",
    re.IGNORECASE,
)
_NAMED_DOMAIN = re.compile(
    r"\b(?:for|on|at|across|in)\s+(?:the\s+)?(?:tasks?\s+)?(?P<l>(?:[\w.-]+(?:\s[\w.-]+)?,\s+)*"
    r"[\w.-]+(?:\s[\w.-]+)?,?\s+and\s+[\w.-]+)\s+(?:datasets|tasks|benchmarks|environments|settings|sub-tasks)\b|"
    r"\bacross\s+(?P<m>[\w.-]+\s+and\s+[\w.-]+)\b|"
    r"\bat batch sizes\s+(?P<n>\d+(?:,\s*\d+)*,?\s+and\s+\d+)|"
    r"\bfor (?:small|large) values of\s+(?P<v>\w+)|"
    r"^(?:all|every|each)\s+(?:\w+\s+){0,2}?(?P<s>models|methods|variants|agents|policies)\b"
    r"(?!\s+(?:[\w-]+,|\S+\s+and\b))",
    re.IGNORECASE,
)


def _universal(c: _Clause, check: Check) -> tuple[str, bool] | None:
    """The sweep a clause quantifies over ("across all datasets"), and whether it is open-ended."""
    text = c.text
    m = _UNIVERSAL.search(text)
    if m and not re.search(r"\baverage\w*\s+(?:[\w-]+\s+){0,4}$", text[: m.start()], re.I):
        what = (m.group("what") or m.group("both") or "").strip()
        return what, bool(_OPEN_ENDED.match(what)) if what else False
    named = _NAMED_DOMAIN.search(_LEADING.sub("", c.body)) or _NAMED_DOMAIN.search(text)
    if named and not re.search(r"\baverage\w*\s+(?:[\w-]+\s+){0,4}(?:across|over)\b", text, re.I):
        what = next(g for g in named.groups() if g)
        return what, False
    if check.relation in {Relation.bound, Relation.equal} and re.search(
        r"\b(?:over|throughout) the course of training|\bacross all timesteps\b", text, re.I
    ):
        return "training step", True
    return None


_SPLIT = re.compile(
    r"(?<=[.;])\s+(?=[A-Z])|;\s*|,?\s+but\s+|,\s+while\s+|,\s+then\s+|"
    r",\s+(?=(?:eventually\s+)?(?:achieving|reaching|exceeding)\b)|"
    r",\s+and\s+(?=(?:it|the|maintain)\b)|\.\s+(?=It\b)|"
    r"\s+while\s+(?=(?:maintaining|keeping|preserving|retaining)\b)"
)


def _annotate(check: Check, dataset: str) -> Check:
    """Units from the constants of equalities and bounds, and the quote's dataset."""
    unit = ""
    if check.relation in {Relation.equal, Relation.bound} and check.constant is not None:
        mentions = find_numbers(check.constant.text)
        unit = mentions[0].unit if mentions and mentions[0].unit not in {"x", "k"} else ""
    quantities = [
        q.model_copy(update={"unit": q.unit or unit, "dataset": q.dataset or dataset})
        for q in check.quantities
    ]
    return check.model_copy(
        update={
            "quantities": quantities,
            "inner": _annotate(check.inner, dataset) if check.inner else None,
            "parts": [_annotate(p, dataset) for p in check.parts],
        }
    )
