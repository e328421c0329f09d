"""Change, ratio and difference: rules D3 (change), D4 (ratio) and D5 (difference).

Part of :mod:`openrepro.claims.checks.draft` (see its docstring for the rules)."""

from __future__ import annotations

import re

from openrepro.claims.checks.draft.clauses import (
    _APPROX,
    _NUM,
    _QUAL,
    _RATE_METRICS,
    _approx,
    _baselines,
    _Clause,
    _comparator,
    _distinct,
    _number_at,
    _quantities,
    _subject,
    _tol,
    direction_of,
)
from openrepro.claims.checks.draft.comparisons import _direct_baseline
from openrepro.claims.checks.draft.settings import _not_compared
from openrepro.claims.checks.records import (
    Check,
    Comparator,
    Constant,
    Direction,
    Relation,
    Tolerance,
    before_quantity,
)


def _change(c: _Clause) -> Check | None:
    m = re.search(
        rf"\bfrom\s+{_APPROX}?\s*(?P<a>{_NUM})\s?%?\s+to\s+{_APPROX}?\s*(?P<b>{_NUM})", c.text, re.I
    )
    if not m:
        return None
    a, b = _number_at(c, m.start("a")), _number_at(c, m.start("b"))
    if a is None or b is None:
        return None
    subject = _subject(c)
    before = before_quantity(subject)
    c.rules.append("D3")
    return Check(
        relation=Relation.change,
        quantities=_quantities([subject, before], c),
        subject=subject,
        baselines=[before],
        constant=Constant(value=a.value, text=a.text),
        upper=Constant(value=b.value, text=b.text),
        comparator=None,
        direction=direction_of(c.text),
        tolerance=_tol(_approx(c.text[: m.start("b")])),
    )


def _ratio(c: _Clause) -> Check | None:
    t = c.text
    m = re.search(
        rf"{_QUAL}(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?(?:x|\u00d7|times|-fold)\s+"
        r"(?P<w>faster|slower|quicker|fewer|less|more|smaller|larger|lower|higher|cheaper|"
        r"better|greater|earlier)\b",
        t,
        re.I,
    ) or re.search(
        r"\b(?P<w>faster|slower|reduces?|cuts?|lowers?|speeds?\s+up|accelerates?|improves?)\b"
        rf"[^.;]{{0,60}}?\bby\s+{_QUAL}(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?(?:x|\u00d7|times|-fold)",
        t,
        re.I,
    )
    share = None
    if not m:
        m = re.search(
            rf"\b(?P<w>retain\w*|keep\w*|preserv\w*)\s+(?P<q>)(?P<approx>{_APPROX})?\s*"
            rf"(?P<n>{_NUM})\s?%\s+of\b",
            t,
            re.I,
        )
        if m:
            number = _number_at(c, m.start("n"))
            if number is None:
                return None
            subject = _subject(c)
            c.rules.append("D4")
            return Check(
                relation=Relation.ratio,
                quantities=_quantities([subject, f"{subject}_reference"], c),
                subject=subject,
                baselines=[f"{subject}_reference"],
                comparator=Comparator.eq,
                constant=Constant(value=number.value / 100, text=number.text),
                tolerance=_tol(bool(m.group("approx"))),
                direction=Direction.higher,
            )
    if not m:
        share = re.search(
            rf"(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?%\s+of\s+(?:the\s+)?[\w\s-]{{0,30}}?"
            r"\b(?:compared (?:to|with)|relative to|of|used by)\b",
            t,
            re.I,
        )
        if not share:
            return None
    hit = m or share
    assert hit is not None
    number = _number_at(c, hit.start("n"))
    if number is None:
        return None
    approx = bool(hit.group("approx"))
    qualifier = (hit.group("q") or "") if m else ""
    comparator, tol = _comparator(qualifier, approx)
    if share is not None:
        constant = Constant(value=number.value / 100, text=number.text)
    else:
        constant = Constant(value=number.value, text=number.text)
        if comparator is Comparator.eq and not approx:
            comparator = Comparator.ge  # "8x faster": at least 8, within the tolerance
    subject = _subject(c)
    baselines = _baselines(c) or ["baseline"]
    subject, base = _distinct(subject, baselines[0])
    c.rules.append("D4")
    word = m.group("w").lower() if m else ""
    direction = direction_of(c.full if direction_of(t) is Direction.none else t)
    if word in {"faster", "quicker", "earlier"} or word.startswith(("speed", "accelerat")):
        direction = Direction.higher if word != "earlier" else Direction.lower
    if word in {"fewer", "less", "smaller", "lower", "cheaper"} or word.startswith(
        ("reduc", "cut")
    ):
        direction = Direction.lower
    return Check(
        relation=Relation.ratio,
        quantities=_quantities([subject, base], c),
        subject=subject,
        baselines=[base],
        comparator=comparator,
        constant=constant,
        tolerance=tol,
        direction=direction,
    )


_NEGATIVE = re.compile(
    r"^(?:slower|lower|less|worse|poorer|drop|decrease|reduction|degradation|"
    r"smaller|fewer)",
    re.I,
)


#: "outperforms the LoRA baseline by at least 2 points": the margin of an ordering is a difference
_BY_MARGIN = re.compile(
    r"\b(?P<w>outperform|surpass|beat|exceed|improve)(?:s|es|ed|ing)?\b[^.;:]{0,80}?"
    rf"\bby\s+{_QUAL}(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?(?P<pct>%|points?|pp)?"
    r"(?P<abs>)(?P<u>)(?![\w.])",
    re.I,
)


def _difference(c: _Clause) -> Check | None:
    t = c.text
    word = (
        r"(?P<w>improvement|increase|gain|enhancement|boost|drop|decrease|reduction|"
        r"degradation|better|higher|lower|faster|slower|less|more|worse|greater|smaller)"
    )
    m = (
        re.search(
            rf"{_QUAL}(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?(?:(?:-|\u2013|to)\s?(?P<u>{_NUM}))?"
            rf"\s?(?P<pct>%|points?|pp)?\s?(?P<abs>\(absolute\)\s?)?(?:points?\s)?(?:\w+\s)?{word}\b",
            t,
            re.I,
        )
        or re.search(
            rf"\b{word}\s+of\s+{_QUAL}(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?(?P<pct>%|points?)"
            r"(?P<abs>)(?P<u>)",
            t,
            re.I,
        )
        or re.search(
            rf"\b{word}\s*\((?:with\s+an?\s+)?{_QUAL}(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})\s?"
            r"(?P<pct>%)(?P<abs>)(?P<u>)",
            t,
            re.I,
        )
        or re.search(
            rf"\+\s?(?P<n>{_NUM})\s?(?P<pct>%|points?|pp|[A-Za-z-]+)?\s+(?P<w>over|above|than)"
            r"(?P<q>)(?P<approx>)(?P<abs>)(?P<u>)",
            t,
            re.I,
        )
        or re.search(
            rf"\b(?:saves?|saving|cuts?|cutting)\s+(?P<q>)(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})"
            r"\s?(?P<pct>%)\s+of\b(?P<w>)(?P<abs>)(?P<u>)",
            t,
            re.I,
        )
    )
    margin = None if m else _BY_MARGIN.search(t)
    m = m or margin
    if not m:
        return None
    number = _number_at(c, m.start("n"))
    if number is None or (margin is None and _not_compared(c, number)):
        return None  # "outperforms B by 2 points": the margin, never a setting
    upper_mention = _number_at(c, m.start("u")) if m.group("u") else None
    if "x" in {number.unit, upper_mention.unit if upper_mention else ""}:
        return None  # "1.11-4.7x lower": a ratio, not a difference
    w = m.group("w").lower() or "less"  # "saves 68% of the tokens": 68% less
    sign = -1.0 if _NEGATIVE.match(w) else 1.0
    if margin is not None and direction_of(t) is Direction.lower:
        sign = -1.0  # "outperforms B by 5% in latency": 5% lower
    percent = (
        (m.group("pct") or "") == "%"
        or number.unit == "%"
        or (upper_mention is not None and upper_mention.unit == "%")
    )
    absolute = (
        bool(m.group("abs"))
        or not percent
        or bool(_RATE_METRICS.search(t))
        or ("points" in (m.group("pct") or ""))
        or w in {"improvement", "increase", "gain", "enhancement", "boost"}
    )
    scale = 0.01 if percent and not absolute else 1.0
    approx = bool(m.group("approx"))
    comparator, tol = _comparator(m.group("q") or "", approx)
    value = sign * number.value * scale
    constant = Constant(value=value, text=number.text)
    upper = None
    if upper_mention is not None:
        upper = Constant(value=sign * upper_mention.value * scale, text=upper_mention.text)
        comparator, tol = Comparator.between, Tolerance(rel=0.0)
        if sign < 0:
            constant, upper = upper, constant
    elif sign < 0 and comparator is Comparator.ge:
        comparator = Comparator.le  # "more than 10% lower": a - b <= -10
    subject = _subject(c)
    baselines = _baselines(c) or (_direct_baseline(c) if margin is not None else []) or ["baseline"]
    subject, base = _distinct(subject, baselines[0])
    c.rules.append("D5")
    direction = direction_of(t)
    if margin is not None and direction is Direction.none:
        direction = Direction.higher  # "outperforms by 2 points", no metric named: a score
    if w in {"faster", "slower"}:
        direction = Direction.higher
    if not m.group("w"):
        direction = Direction.lower  # what is saved: tokens, time, cost
    return Check(
        relation=Relation.difference,
        quantities=_quantities([subject, base], c),
        subject=subject,
        baselines=[base],
        comparator=comparator,
        constant=constant,
        upper=upper,
        relative=scale != 1.0,
        tolerance=tol,
        direction=direction,
    )
