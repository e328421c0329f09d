"""Measuring the check drafters against labelled checks: coverage, accuracy, confusion.

A labels file is JSON Lines, one :class:`CheckLabel` a line (lines starting with ``#`` are
comments)::

    {"id": "pb000", "quote": "... APT converged about 8x faster than the LoRA+Prune baseline",
     "relation": "ratio", "parts": [], "quantities": 2, "constants": [8], "direction": "higher"}

``parts`` lists the relations one level down (the conjuncts of ``all_of``, the inner relation of
``for_all`` / ``exists``); ``constants`` the numbers as the quote writes them; ``human`` labels a
claim that only a person can decide; ``"relation": null`` a claim no check should be drafted for
(a theorem, a description, a phrasing the check language cannot state): any check drafted for it
is wrong. :func:`evaluate_drafter` drafts a check for every quote and
reports:

- **coverage**: the share of labels that get a valid (consistent, grounded) check, and the share
  of the *checkable* labels (those with a relation) that do;
- **precision**: the share of drafted checks that are right on all four counts below (a check
  drafted for a label without a relation is wrong);
- on the drafted ones, the accuracy of the **relation** (the relation and the relations one
  level down all match), of the top relation alone, of the number of **quantities**, of the
  **constants** (the same set of numbers), and of the **direction**;
- a **confusion table** gold relation -> drafted relation (``none`` when no check was drafted),
  and per gold relation its coverage and relation accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from openrepro.claims.checks.draft import Draft
from openrepro.claims.checks.records import Check, Direction, Relation
from openrepro.claims.values import find_numbers
from openrepro.errors import CheckError
from openrepro.jsonl import read_records

__all__ = [
    "CheckLabel",
    "DraftCase",
    "DrafterReport",
    "RelationScore",
    "evaluate_drafter",
    "read_check_labels",
    "render_report",
]

NONE = "none"


class CheckLabel(BaseModel):
    """What a careful reader says the check of ``quote`` is."""

    model_config = ConfigDict(extra="forbid")

    id: str
    source: str = ""
    quote: str
    relation: Relation | None  # None: no check should be drafted
    parts: list[Relation] = Field(default_factory=list)
    quantities: int = Field(ge=0)
    constants: list[float] = Field(default_factory=list)
    direction: Direction = Direction.none
    note: str = ""


class DraftCase(BaseModel):
    id: str
    gold: str
    drafted: str  # the drafted relation, or "none"
    origin: str = ""  # rules | llm, "" when none
    relation_ok: bool = False
    top_ok: bool = False
    quantities_ok: bool = False
    constants_ok: bool = False
    direction_ok: bool = False
    description: str = ""
    reason: str = ""  # why no check was drafted


class RelationScore(BaseModel):
    relation: str
    labels: int
    drafted: int
    correct: int
    coverage: float
    accuracy: float  # relation accuracy on the drafted ones


class DrafterReport(BaseModel):
    drafter: str
    labels: int
    drafted: int
    coverage: float
    relation_accuracy: float
    #: drafted checks right on relation, quantities, constants and direction at once
    precision: float = 0.0
    #: labels with a relation, and the share of them given a check
    checkable: int = 0
    checkable_coverage: float = 0.0
    #: labels without a relation (no check should be drafted) that got one
    abstain_drafted: int = 0
    top_relation_accuracy: float
    quantities_accuracy: float
    constants_accuracy: float
    direction_accuracy: float
    #: labels marked ``human`` that got a check code would decide (a drafter should abstain or
    #: draft a ``human`` check there)
    human_drafted: int = 0
    by_origin: dict[str, int] = Field(default_factory=dict)
    confusion: dict[str, dict[str, int]] = Field(default_factory=dict)
    per_relation: list[RelationScore] = Field(default_factory=list)
    cases: list[DraftCase] = Field(default_factory=list)


def read_check_labels(path: Path | str) -> list[CheckLabel]:
    """The labels of a JSON Lines file; a :class:`CheckError` names the line and the problem."""
    labels = read_records(path, CheckLabel, CheckError)
    if not labels:
        raise CheckError(f"{Path(path)}: no labels")
    return labels


def _children(check: Check) -> list[str]:
    if check.relation is Relation.all_of:
        return sorted(p.relation.value for p in check.parts)
    if check.inner is not None:
        return [check.inner.relation.value]
    return []


def _written(check: Check) -> list[float]:
    """The constants as the quote writes them (``"5%"`` -> 5 even when stored as 0.05)."""
    out: list[float] = []
    for constant in check.constants():
        mentions = find_numbers(constant.text)
        out.append(abs(mentions[0].value) if mentions else abs(constant.value))
    return out


def _same_numbers(a: Sequence[float], b: Sequence[float]) -> bool:
    def unique(values: Sequence[float]) -> list[float]:
        kept: list[float] = []
        for v in values:
            if not any(math.isclose(v, k, rel_tol=1e-6, abs_tol=1e-12) for k in kept):
                kept.append(v)
        return sorted(kept)

    left, right = unique([abs(v) for v in a]), unique([abs(v) for v in b])
    return len(left) == len(right) and all(
        math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-12) for x, y in zip(left, right, strict=True)
    )


def _direction(check: Check) -> Direction:
    for node in check.nodes():
        if node.direction is not Direction.none:
            return node.direction
    return Direction.none


def _ratio(a: int, b: int) -> float:
    return round(a / b, 4) if b else 0.0


def evaluate_drafter(
    labels: Sequence[CheckLabel],
    drafter: Callable[[str], Draft],
    *,
    name: str = "rules",
    progress: Callable[[DraftCase], None] | None = None,
) -> DrafterReport:
    """Draft a check for each label's quote with ``drafter`` and score it (module docstring)."""
    cases: list[DraftCase] = []
    for label in labels:
        draft = drafter(label.quote)
        check = draft.check
        gold = label.relation.value if label.relation is not None else NONE
        if check is None:
            case = DraftCase(id=label.id, gold=gold, drafted=NONE, reason=draft.reason)
        else:
            top = check.relation is label.relation
            case = DraftCase(
                id=label.id,
                gold=gold,
                drafted=check.relation.value,
                origin=check.origin.value,
                top_ok=top,
                relation_ok=top and _children(check) == sorted(p.value for p in label.parts),
                quantities_ok=len(check.all_quantities()) == label.quantities,
                constants_ok=_same_numbers(_written(check), label.constants),
                direction_ok=_direction(check) is label.direction,
                description=check.describe(),
            )
        cases.append(case)
        if progress is not None:
            progress(case)
    drafted = [c for c in cases if c.drafted != NONE]
    confusion: dict[str, dict[str, int]] = {}
    for case in cases:
        row = confusion.setdefault(case.gold, {})
        row[case.drafted] = row.get(case.drafted, 0) + 1
    per_relation: list[RelationScore] = []
    for relation in sorted(confusion):
        mine = [c for c in cases if c.gold == relation]
        done = [c for c in mine if c.drafted != NONE]
        correct = sum(c.relation_ok for c in done)
        per_relation.append(
            RelationScore(
                relation=relation,
                labels=len(mine),
                drafted=len(done),
                correct=correct,
                coverage=_ratio(len(done), len(mine)),
                accuracy=_ratio(correct, len(done)),
            )
        )
    exact = [
        c
        for c in drafted
        if c.relation_ok and c.quantities_ok and c.constants_ok and c.direction_ok
    ]
    checkable = [c for c in cases if c.gold != NONE]
    by_origin: dict[str, int] = {}
    for case in drafted:
        by_origin[case.origin] = by_origin.get(case.origin, 0) + 1
    return DrafterReport(
        drafter=name,
        labels=len(cases),
        drafted=len(drafted),
        coverage=_ratio(len(drafted), len(cases)),
        relation_accuracy=_ratio(sum(c.relation_ok for c in drafted), len(drafted)),
        precision=_ratio(len(exact), len(drafted)),
        checkable=len(checkable),
        checkable_coverage=_ratio(sum(c.drafted != NONE for c in checkable), len(checkable)),
        abstain_drafted=sum(c.gold == NONE for c in drafted),
        top_relation_accuracy=_ratio(sum(c.top_ok for c in drafted), len(drafted)),
        quantities_accuracy=_ratio(sum(c.quantities_ok for c in drafted), len(drafted)),
        constants_accuracy=_ratio(sum(c.constants_ok for c in drafted), len(drafted)),
        direction_accuracy=_ratio(sum(c.direction_ok for c in drafted), len(drafted)),
        human_drafted=sum(
            c.gold == Relation.human.value and c.drafted != Relation.human.value for c in drafted
        ),
        by_origin=by_origin,
        confusion=confusion,
        per_relation=per_relation,
        cases=cases,
    )


def render_report(report: DrafterReport) -> str:
    """The report as plain text: the figures, then the confusion table (gold rows)."""
    lines = [
        f"drafter {report.drafter}: {report.labels} labels, {report.drafted} drafted "
        f"(coverage {report.coverage:.1%})",
        f"  relation accuracy {report.relation_accuracy:.1%} "
        f"(top relation {report.top_relation_accuracy:.1%}), quantities "
        f"{report.quantities_accuracy:.1%}, constants {report.constants_accuracy:.1%}, "
        f"direction {report.direction_accuracy:.1%}",
        f"  precision (all four right) {report.precision:.1%}; checkable {report.checkable}, "
        f"of them drafted {report.checkable_coverage:.1%}; no-check claims given a check "
        f"{report.abstain_drafted}",
        f"  human-only claims given a check code decides: {report.human_drafted}; by origin: "
        + (", ".join(f"{k} {v}" for k, v in sorted(report.by_origin.items())) or "none"),
    ]
    columns = [*sorted({d for row in report.confusion.values() for d in row} - {NONE}), NONE]
    width = max(len(c) for c in [*columns, *report.confusion, "gold \\ drafted"]) + 1
    lines.append(
        "gold \\ drafted".ljust(width)
        + "".join(c.rjust(width) for c in columns)
        + "  coverage  accuracy"
    )
    for score in report.per_relation:
        row = report.confusion[score.relation]
        lines.append(
            score.relation.ljust(width)
            + "".join(str(row.get(c, 0) or ".").rjust(width) for c in columns)
            + f"  {score.coverage:8.0%}  {score.accuracy:8.0%}"
        )
    return "\n".join(lines)
