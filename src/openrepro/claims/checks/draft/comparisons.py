"""Orderings and comparability: rules D6 (within), D9 (ordering >=), D10 (comparable) and D11
(ordering), and the copies of a check per subject.

Part of :mod:`openrepro.claims.checks.draft` (see its docstring for the rules)."""

from __future__ import annotations

import re

from openrepro.claims.checks.draft.clauses import (
    _APPROX,
    _GROUP,
    _NUM,
    _RATE_METRICS,
    _STOP,
    _SUBJECT_VERB,
    _baselines,
    _Clause,
    _number_at,
    _quantities,
    _slug,
    _subject,
    direction_of,
)
from openrepro.claims.checks.draft.settings import _SETTING_AFTER
from openrepro.claims.checks.records import (
    DEFAULT_REL_TOL,
    Check,
    Comparator,
    Constant,
    Direction,
    Quantity,
    Relation,
    Tolerance,
)


def _within(c: _Clause) -> Check | None:
    m = re.search(
        rf"\bwithin\s+(?:\+-|\+/-|\u00b1|\+-\s)?\s*(?P<approx>{_APPROX})?\s*(?P<n>{_NUM})"
        r"\s?%?(?:\s+\w+)?\s+(?:of|C2ST|\))",
        c.text,
        re.I,
    ) or re.search(rf"\bwithin\s+(?:\+-|\+/-|\u00b1)\s*(?P<approx>)(?P<n>{_NUM})", c.text, re.I)
    if not m:
        return None
    number = _number_at(c, m.start("n"))
    if number is None or _SETTING_AFTER.match(c.text[number.end :]):
        return None
    rel = number.unit == "%" and not _RATE_METRICS.search(c.text)
    tol = (
        Tolerance(rel=min(number.value / 100, 1.0)) if rel else Tolerance(rel=0.0, abs=number.value)
    )
    subject = _subject(c)
    baselines = _baselines(c) or _peers(c)[1:] or ["baseline"]
    if _peers(c):
        subject = _peers(c)[0]
    names = [subject, *[b for b in baselines if b != subject]]
    c.rules.append("D6")
    return Check(
        relation=Relation.comparable,
        quantities=_quantities(names, c),
        subject=subject,
        baselines=names[1:],
        constant=Constant(value=number.value, text=number.text),
        tolerance=tol,
        direction=direction_of(c.full),
    )


_AT_LEAST_AS = re.compile(
    r"\b(?:comparable (?:to )?or (?:is )?(?P<a>higher|better|lower|slightly higher)|equal or "
    r"(?P<b>higher|better|lower)|(?:about|roughly) equal or (?P<c>higher|better|lower)|"
    r"at least as (?:well|good|high) as|(?:outperforms?|better) or (?:matches|is comparable)|"
    r"either outperforms or matches|outperforms or is comparable|not significantly lower|"
    r"(?P<d>lower|higher) or roughly equivalent|around the same or (?P<e>worse|better)|"
    r"equivalent or (?P<f>higher|lower)|lower or (?:roughly )?equivalent)\b",
    re.IGNORECASE,
)
_SIMILAR = re.compile(
    r"\b(?:similar|comparable|(?:roughly |about |approximately )?equivalent|about the same|"
    r"around the same|the same as|on par|roughly equal|perform similarly|competitive with)\b",
    re.IGNORECASE,
)
_BETTER = re.compile(
    r"\b(?P<w>outperform\w*|surpass\w*|beats?|better|worse|poorer|higher|lower|greater|smaller|"
    r"larger|less|more|fewer|faster|slower|superior|inferior|best|highest|lowest|worst|smallest|"
    r"largest|reduc\w*|improv\w*|drop in|increase\w*)\b",
    re.IGNORECASE,
)


_LEADING = re.compile(
    r"^(?:for|in|on|at|when|compared to|throughout|across|after|with|under|"
    r"using|during)\b[^,]*,\s*",
    re.IGNORECASE,
)


def _peers(c: _Clause) -> list[str]:
    """Names listed as a plural subject: "NPSE-VE, NPSE-VP, and NPE achieve similar ..."."""
    body = _LEADING.sub("", c.body)
    m = _SUBJECT_VERB.search(body)
    if not m:
        return []
    phrase = body[: m.start()].strip()
    phrase = re.sub(
        r"^(?:all\s+(?:two|three|four|five)?\s*(?:of\s+)?(?:the\s+)?(?:methods\s+)?|"
        r"(?:the\s+)?methods\s+|both\s+(?:the\s+)?)",
        "",
        phrase,
        flags=re.I,
    )
    phrase = re.sub(r"\s+(?:both|all|significantly|slightly|each)$", "", phrase, flags=re.I)
    if re.search(
        r"\b(?:when|trained|using|e\.g|i\.e)\b|[(=]",
        phrase.replace("(BC)", "").replace("(EM)", "").replace("(EWC)", "").replace("(KS)", ""),
        re.I,
    ):
        return []
    pieces = [p for p in re.split(r",\s*(?:and\s+)?|\s+and\s+", phrase) if p.strip()]
    if len(pieces) < 2 or len(pieces) > 6 or any(len(p.split()) > 8 for p in pieces):
        return []
    names: list[str] = []
    for i, piece in enumerate(pieces):
        name = _slug(piece, f"q{i}")
        names.append(name if name not in names else f"{name}_{i}")
    return names


def _methods_list(c: _Clause) -> list[str]:
    """ "for the A, B and C methods", "All three of A, B and C": one subject each."""
    m = re.search(
        r"\b(?:for the|all (?:two|three|four) of)\s+"
        r"(?P<l>[\w-]+(?:\s[\w-]+){0,2}(?:,\s*[\w-]+"
        r"(?:\s[\w-]+){0,2})*,?\s+and\s+[\w-]+(?:\s[\w-]+)?)(?:\s+[\w-]+)?\s+methods\b",
        c.text,
        re.I,
    )
    if not m:
        return []
    pieces = [p for p in re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group("l")) if p.strip()]
    return [_slug(p, f"q{i}") for i, p in enumerate(pieces)] if 2 <= len(pieces) <= 6 else []


def _copies(check: Check, subjects: list[str]) -> Check:
    """One copy of ``check`` per subject, sharing its baselines (a plural subject)."""
    parts: list[Check] = []
    baselines = [q for q in check.quantities if q.name in check.baselines]
    for name in subjects:
        if name in check.baselines:
            name = f"{name}_subject"
        parts.append(
            check.model_copy(
                update={
                    "subject": name,
                    "quantities": [
                        Quantity(name=name, description=name.replace("_", " ")),
                        *baselines,
                    ],
                }
            )
        )
    return Check(relation=Relation.all_of, parts=parts)


def _ordering_ge(c: _Clause) -> Check | None:
    m = _AT_LEAST_AS.search(c.text)
    if not m:
        return None
    direction = direction_of(c.text if direction_of(c.text) is not Direction.none else c.full)
    word = next((g for g in m.groups() if g), "").lower()
    lower_words = {"lower", "worse"}
    if word:
        below = word in lower_words
        if word == "lower" and direction is Direction.lower:
            below = True
    else:
        below = direction is Direction.lower and "lower" in m.group(0).lower()
    subject = _subject(c)
    baselines = [b for b in _baselines(c) if b != subject] or ["baseline"]
    c.rules.append("D9")
    return Check(
        relation=Relation.ordering,
        quantities=_quantities([subject, *baselines], c),
        subject=subject,
        baselines=baselines,
        comparator=Comparator.le if below else Comparator.ge,
        tolerance=Tolerance(rel=DEFAULT_REL_TOL),
        direction=direction,
    )


def _comparable(c: _Clause) -> Check | None:
    if not _SIMILAR.search(c.text):
        return None
    peers = _peers(c)
    baselines = _baselines(c)
    if peers and not baselines:
        subject, baselines = peers[0], peers[1:]
    else:
        subject = _subject(c)
        baselines = [b for b in baselines if b != subject] or ["baseline"]
    c.rules.append("D10")
    return Check(
        relation=Relation.comparable,
        quantities=_quantities([subject, *baselines], c),
        subject=subject,
        baselines=baselines,
        tolerance=Tolerance(rel=DEFAULT_REL_TOL),
        direction=direction_of(c.text if direction_of(c.text) is not Direction.none else c.full),
    )


def _direct_baseline(c: _Clause) -> list[str]:
    """The baseline an ordering names as its object ("outperforms LoRA on GLUE": lora)."""
    direct = re.search(r"\b(?:outperform|surpass|beat)\w*\s+(?P<o>[^,;]+)", c.body, re.I)
    if not direct:
        return []
    rest = _STOP.sub("", direct.group("o")).strip(" ,")
    rest = re.split(r"\s+(?:such as|including|like|by|in|on)\s+", rest, maxsplit=1)[0]
    if not rest or re.match(r"^[\d.~<>(+-]", rest):
        return []
    return ["other_methods"] if _GROUP.match(rest) else [_slug(rest, "baseline")]


def _ordering(c: _Clause) -> Check | None:
    m = _BETTER.search(c.body)
    if not m:
        return None
    word = m.group("w").lower()
    direction = direction_of(c.text if direction_of(c.text) is not Direction.none else c.full)
    superlative = word in {"best", "highest", "lowest", "worst", "smallest", "largest"}
    baselines = _baselines(c) or _direct_baseline(c)
    if not baselines:
        if not superlative and not word.startswith(
            ("reduc", "improv", "outperform", "surpass", "drop", "increase")
        ):
            return None
        baselines = ["other_methods" if superlative else "baseline"]
    subject = _subject(c)
    baselines = [b if b != subject else f"{b}_baseline" for b in baselines]
    if word in {"higher", "greater", "larger", "more", "largest", "highest"} or word.startswith(
        "increase"
    ):
        op = Comparator.gt
    elif word in {"lower", "less", "fewer", "smaller", "lowest", "smallest"} or word.startswith(
        ("reduc", "drop")
    ):
        op = Comparator.lt
    elif word in {"worse", "poorer", "inferior", "worst"}:
        op = Comparator.lt if direction is not Direction.lower else Comparator.gt
    elif word == "slower":
        op = Comparator.lt
        direction = Direction.higher
    elif word == "faster":
        op = Comparator.gt
        direction = Direction.higher
    else:  # better, outperforms, surpasses, beats, superior, best, improves
        op = Comparator.lt if direction is Direction.lower else Comparator.gt
        if (
            direction is Direction.none
            and word.startswith("improv")
            and re.search(r"\bestimat\w*", c.text, re.I)
        ):
            op, direction = Comparator.lt, Direction.lower  # a better estimate: a lower error
        elif direction is Direction.none:
            direction = Direction.higher  # no metric named: "better" is the higher score
    c.rules.append("D11")
    return Check(
        relation=Relation.ordering,
        quantities=_quantities([subject, *baselines], c),
        subject=subject,
        baselines=baselines,
        comparator=op,
        direction=direction,
    )
