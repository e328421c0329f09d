"""Bounds and equalities: rules D7 (bound) and D8 (equal).

Part of :mod:`openrepro.claims.checks.draft` (see its docstring for the rules)."""

from __future__ import annotations

import re

from openrepro.claims.checks.draft.clauses import (
    _APPROX,
    _NUM,
    _Clause,
    _number_at,
    _quantities,
    _subject,
    _tol,
    direction_of,
)
from openrepro.claims.checks.draft.settings import _not_compared
from openrepro.claims.checks.records import (
    APPROX_REL_TOL,
    Check,
    Comparator,
    Constant,
    Direction,
    Relation,
    Tolerance,
)
from openrepro.claims.values import (
    NumberMention,
    find_numbers,
)

_BOUND = re.compile(
    r"(?P<q>at least|no less than|not less than|\u2265|>=|more than|greater than|above|over|"
    r"exceed(?:s|ing|ed)?|>|at most|no more than|no greater than|not more than|up to|\u2264|<=|"
    r"less than|fewer than|below|under|<)\s*(?:values of\s+|the\s+)?(?:>\s*)?"
    rf"(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})",
    re.IGNORECASE,
)


def _bound(c: _Clause) -> Check | None:
    found: list[tuple[Comparator, NumberMention, bool]] = []
    for m in _BOUND.finditer(c.text):
        number = _number_at(c, m.start("n"))
        if number is None or _not_compared(c, number):
            continue
        q = m.group("q").lower()
        if re.search(
            r"\bfor\s+(?:small|large)\s+values\b|\bwhen\s+\$?\w+\$?\s*$", c.text[: m.start()], re.I
        ):
            continue  # "for small values of gamma (less than 1.5)": the sweep's domain
        upper = q in {
            "at most",
            "no more than",
            "no greater than",
            "not more than",
            "up to",
            "\u2264",
            "<=",
            "less than",
            "fewer than",
            "below",
            "under",
            "<",
        }
        strict = q in {
            ">",
            "<",
            "more than",
            "greater than",
            "above",
            "less than",
            "fewer than",
            "below",
            "under",
        } or q.startswith("exceed")
        op = (
            (Comparator.lt if strict else Comparator.le)
            if upper
            else (Comparator.gt if strict else Comparator.ge)
        )
        if re.search(
            r"\b(?:doesn't|does not|don't|do not|never|not)\b[^.;]{0,40}$",
            c.text[: m.start()],
            re.I,
        ):
            op = {
                Comparator.lt: Comparator.ge,
                Comparator.le: Comparator.gt,
                Comparator.gt: Comparator.le,
                Comparator.ge: Comparator.lt,
            }[op]
        around = bool(re.search(r"around or\s*$", c.text[: m.start()], re.I))
        found.append((op, number, around or bool(m.group("approx"))))
    if not found:
        return None
    subject = _subject(c)
    checks: list[Check] = []
    for i, (op, number, approx) in enumerate(found):
        name = subject if len(found) == 1 else f"{subject}_{i + 1}"
        checks.append(
            Check(
                relation=Relation.bound,
                quantities=_quantities([name], c),
                subject=name,
                comparator=op,
                constant=Constant(value=number.value, text=number.text),
                tolerance=Tolerance(rel=APPROX_REL_TOL if approx else 0.0),
                direction=direction_of(
                    c.text if direction_of(c.text) is not Direction.none else c.full
                ),
            )
        )
    c.rules.append("D7")
    return checks[0] if len(checks) == 1 else Check(relation=Relation.all_of, parts=checks)


_REPORT = re.compile(
    r"(?:achiev\w*|reach\w*|attain\w*|obtain\w*|yields?|is|was|were|are|of|around|"
    rf"{_APPROX}|=|equivalent to|close to|(?:falls?|drops?|goes|going|decreases?|increases?|rises?)"
    r" to|takes? up|reaching|exceeding)\s*(?:\(\+-\s?[\d.]+k?\)\s*)?(?:an?\s+)?(?:[\w@-]+\s+){0,3}?"
    rf"(?P<approx>{_APPROX})?\s*$",
    re.IGNORECASE,
)


def _in_range(text: str, number: NumberMention) -> bool:
    """Whether ``number`` is one end of a range ("0.2-0.3", "18.0-2875.8", "1.11-4.7x")."""
    return bool(
        re.match(r"\s?[-\u2013]\s?\d", text[number.end : number.end + 3])
        or re.search(r"\d\s?[-\u2013]\s?$", text[max(0, number.start - 3) : number.start])
    )


def _equal(c: _Clause) -> Check | None:
    metric = direction_of(c.text) is not Direction.none
    found: list[tuple[NumberMention, bool]] = []
    for number in find_numbers(c.text):
        if _not_compared(c, number) or (
            number.unit in {"K", "M", "B", "T", "GB"}
            and not re.search(r"\b(?:VRAM|memory)\b", c.text, re.I)
        ):
            continue
        before = c.text[max(0, number.start - 60) : number.start]
        if re.search(rf"\bby\s+(?:{_APPROX}\s+)?$", before, re.I) or _in_range(c.text, number):
            continue  # "improves X by about 5%": an amount of change; "0.2-0.3": a range
        report = _REPORT.search(before)
        if not report and not (found and re.search(r"\band\s+$", before)):
            continue
        approx = (
            bool(report and report.group("approx"))
            or bool(re.search(rf"{_APPROX}\s*$", before, re.I))
            or bool(found and found[-1][1])
        )
        if not (metric or number.unit or approx):
            continue
        found.append((number, approx))
    if not found:
        return None
    subject = _subject(c)
    tol_abs = re.search(r"\(\+-\s?(?P<n>[\d.]+k?)\)", c.text)
    se = re.search(rf"standard error of\s+(?P<n>{_NUM})", c.text, re.I)
    checks: list[Check] = []
    for i, (number, approx) in enumerate(found):
        name = subject if len(found) == 1 else f"{subject}_{i + 1}"
        tol = _tol(approx)
        for extra in (tol_abs, se):
            if extra is not None:
                mentions = find_numbers(extra.group("n"))
                if mentions:
                    tol = Tolerance(rel=tol.rel, abs=mentions[0].value * (2 if extra is se else 1))
        checks.append(
            Check(
                relation=Relation.equal,
                quantities=_quantities([name], c),
                subject=name,
                constant=Constant(value=number.value, text=number.text),
                tolerance=tol,
                direction=direction_of(c.text if metric else c.full),
            )
        )
    c.rules.append("D8")
    return checks[0] if len(checks) == 1 else Check(relation=Relation.all_of, parts=checks)
