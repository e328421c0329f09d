"""How the board shows a verdict its claim's check decided: the check in words, its rule, the
bound values with links to where each was read, the test's numbers and a small chart.

A verdict decided by a check stores the judge's :class:`~openrepro.evidence.relations.Evaluation`
(``verdicts.details``): the check, the bound values per quantity with their pointers as words,
the test, its numbers and rule. The verdict's evidence holds the same pointers as records; a
bound value's words are matched to them (:func:`~openrepro.evidence.records.describe_pointer`)
to link the exact place in the rendered logbook: a metric's row (run, key, step), a run's
section for an output line or a table or file a run produced. Pointer kinds are shown by their
description, so a kind added later reads sensibly before it gets a link of its own.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from openrepro.board import charts
from openrepro.claims.checks import Relation
from openrepro.evidence.records import Pointer, describe_pointer
from openrepro.evidence.relations import Evaluation
from openrepro.logbooks.render import metric_anchor, run_anchor

__all__ = [
    "CHECK_COMMANDS",
    "BoundValue",
    "CheckShown",
    "PointerLink",
    "check_shown",
    "pointer_anchor",
    "pointer_link",
]

#: How an organizer reads and edits a claim's check (the board itself is read-only).
CHECK_COMMANDS = (
    "openrepro claims check show {claim}",
    "openrepro claims check set {claim} --file check.json --reason '...'",
    "openrepro claims check rm {claim} --reason '...'",
)

_SCALAR = {Relation.equal, Relation.bound}
MAX_PARTS = 50  # parts (conjuncts, sweep points) shown of one evaluation
_SWEEP = {Relation.trend, Relation.growth, Relation.for_all, Relation.exists}


class PointerLink(BaseModel):
    """One place a value was read, as words and (when the logbook page has it) an anchor."""

    kind: str
    text: str
    anchor: str = ""  # the id in the rendered logbook; "" when nothing there to link


class BoundValue(BaseModel):
    """One value bound to a quantity: a seed, or a sweep point ``(x, value)``."""

    quantity: str
    value: float
    x: str = ""
    pointer: str = ""  # the pointer in words, as the verdict recorded it
    links: list[PointerLink] = Field(default_factory=list)


class CheckShown(BaseModel):
    """A check-decided verdict (or one part of it), ready for the templates."""

    words: str
    relation: str
    rule: str
    rule_name: str
    verdict: str
    test: str = ""
    detail: str = ""
    numbers: dict[str, float | int | str | None] = Field(default_factory=dict)
    flags: list[str] = Field(default_factory=list)
    at: str = ""
    values: list[BoundValue] = Field(default_factory=list)
    chart: str = ""  # an inline SVG (its <desc> and the values table are its text)
    parts: list[CheckShown] = Field(default_factory=list)


def pointer_anchor(pointer: Pointer) -> str:
    """The anchor of a pointer's place in the rendered logbook ("" when it has none)."""
    if pointer.kind == "metric":
        return metric_anchor(pointer.run, pointer.key, pointer.step)
    if pointer.run:  # an output line, or a table or file a run produced
        return run_anchor(pointer.run)
    return ""


def pointer_link(item: dict[str, Any]) -> PointerLink:
    """A stored evidence pointer as words and anchor; a kind this version does not know is
    shown as its fields."""
    try:
        pointer = Pointer.model_validate(item)
    except ValidationError:
        fields = ", ".join(f"{k} {v}" for k, v in item.items() if v not in (None, ""))
        return PointerLink(kind=str(item.get("kind", "")), text=fields)
    return PointerLink(kind=pointer.kind, text=describe_pointer(pointer),
                       anchor=pointer_anchor(pointer))  # fmt: skip


def _pointers(evidence: list[dict[str, Any]]) -> list[Pointer]:
    found: list[Pointer] = []
    for item in evidence:
        try:
            found.append(Pointer.model_validate(item))
        except ValidationError:
            continue  # a kind this version does not know: shown by its words alone
    return found


def _named(pointers: list[Pointer]) -> dict[str, list[Pointer]]:
    """The evidence pointers by their words (described once, not once per bound value)."""
    named: dict[str, list[Pointer]] = {}
    for pointer in pointers:
        words = describe_pointer(pointer)
        if words:
            named.setdefault(words, []).append(pointer)
    return named


def _links(text: str, named: dict[str, list[Pointer]]) -> list[PointerLink]:
    """The evidence pointers a bound value's words name (a sweep point names two: ``<value's
    words> at <x's words>``), looked up by their words: linear in the values, where comparing
    each value with every pointer made a 2,000-row panel take 8.5 s."""
    parts = text.split(" at ")[:8]
    spans = {
        " at ".join(parts[i:j]) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1)
    }
    return [
        PointerLink(kind=p.kind, text=words, anchor=pointer_anchor(p))
        for words in sorted(spans & named.keys(), key=text.find)
        for p in named[words]
    ]


def _values(result: Evaluation, pointers: list[Pointer]) -> list[BoundValue]:
    out: list[BoundValue] = []
    named = _named(pointers)
    for bound in result.bound:
        texts = list(bound.pointers)
        if bound.points:
            rows = [(str(x), y) for x, y in bound.points]
        else:
            rows = [("", y) for y in bound.seeds]
        for i, (x, y) in enumerate(rows):
            text = texts[i] if i < len(texts) else ""
            out.append(BoundValue(quantity=bound.quantity, value=y, x=x, pointer=text,
                                  links=_links(text, named)))  # fmt: skip
    return out


def _number(numbers: dict[str, Any], key: str) -> float | None:
    value = numbers.get(key)
    return float(value) if isinstance(value, int | float) and math.isfinite(value) else None


def _reference(result: Evaluation) -> float | None:
    """The paper's number the chart draws: the check's constant, else the claimed region's
    finite edge (a part of a conjunction carries no check of its own)."""
    check = result.check
    if check is not None and check.inner is not None and result.relation in _SWEEP:
        check = check.inner
    if check is not None and check.constant is not None:
        return check.constant.value
    low, high = _number(result.numbers, "region_low"), _number(result.numbers, "region_high")
    if (low is None) != (high is None):
        return low if low is not None else high
    return None


def _fit(points: list[tuple[float | str, float]]) -> tuple[float, float] | None:
    """The least-squares line through numeric sweep points (the fit a trend is decided by)."""
    try:
        xs = [float(x) for x, _ in points]
    except (TypeError, ValueError):
        return None
    if len(set(xs)) < 2:
        return None
    slope, intercept = statistics.linear_regression(xs, [y for _, y in points])
    return intercept, slope


def _chart(result: Evaluation, title: str) -> str:
    reference = _reference(result)
    points = [p for b in result.bound for p in b.points]
    if result.relation in _SWEEP or points:
        sweep = result.check.sweep if result.check is not None else ""
        line = _fit(points) if result.relation is Relation.trend else None
        return charts.sweep_chart(points, title=title, x_label=sweep or "x", line=line,
                                  reference=reference)  # fmt: skip
    rows = [(b.quantity, b.seeds) for b in result.bound if b.seeds]
    if not rows:
        return ""
    low, high = _number(result.numbers, "low"), _number(result.numbers, "high")
    scalar = result.relation in _SCALAR
    return charts.seeds_chart(
        rows, title=title, reference=reference if scalar else None,
        interval=(low, high) if scalar and low is not None and high is not None else None,
        region=(_number(result.numbers, "region_low"), _number(result.numbers, "region_high"))
        if scalar else None,
    )  # fmt: skip


def _shown(
    result: Evaluation, pointers: list[Pointer], claim: str, *, full: bool = True
) -> CheckShown:
    """``full``: with values and chart (a point of a for_all/exists shares its parent's)."""
    words = result.check.describe() if result.check is not None else result.description
    quantified = result.relation in (Relation.for_all, Relation.exists)
    return CheckShown(
        words=words, relation=str(result.relation), rule=result.rule, rule_name=result.rule_name,
        verdict=result.verdict, test=result.test, detail=result.detail, numbers=result.numbers,
        flags=result.flags, at=result.at,
        values=_values(result, pointers) if full else [],
        chart=_chart(result, f"{claim}: {words}") if full else "",
        parts=[_shown(part, pointers, claim, full=full and not quantified)
               for part in result.parts[:MAX_PARTS]],
    )  # fmt: skip


def check_shown(
    details: dict[str, Any], evidence: list[dict[str, Any]], claim: str = ""
) -> CheckShown | None:
    """The verdict's check as the board shows it, or None when no check decided it (or what
    was stored is no evaluation this version reads)."""
    if not details or "rule" not in details:
        return None
    try:
        result = Evaluation.model_validate(details)
    except ValidationError:
        return None
    return _shown(result, _pointers(evidence), claim)
