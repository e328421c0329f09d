"""The confidence gate: the shapes of the rules' checks measured right on real event claims.

Part of :mod:`openrepro.claims.checks.draft` (see its docstring for the rules)."""

from __future__ import annotations

import re

from openrepro.claims.checks.draft.audit import _strip_anchors, _superscripts, _used_numbers
from openrepro.claims.checks.records import (
    Check,
    Relation,
)
from openrepro.claims.text import normalize_with_map

__all__ = ["confidence_gate"]


_FRAGMENT_WORDS = frozenset(
    "a an and or to in of on at by for from with than versus vs the specifically".split()  # noqa: SIM905
)
_UNSTATED_COMPARISON = re.compile(
    r"\b(?:best|outperform\w*|surpass\w*|beats?|state[- ]of[- ]the[- ]art|sota|below|above)\b",
    re.I,
)
_NUM_RE = r"(?<![\w.])\d+(?:\.\d+)?"
# a number that is not a value of its own: a multiplier ("9.2x speedup", a ratio to a baseline),
# an amount of change ("reducing latency by about 20%"), or the ends of a change ("from 11.1%
# closed-book to 34.2%")
_RELATIVE_VALUE = re.compile(
    rf"{_NUM_RE}\s?(?:x|\u00d7)(?![a-z])|\bby\s+(?:about\s+|roughly\s+|~\s?)?{_NUM_RE}"
    rf"|\bfrom\s+{_NUM_RE}[^.;]*?\bto\s+{_NUM_RE}",
    re.I,
)
_FROM_TO = re.compile(rf"\bfrom\s+[-+\u2212]?{_NUM_RE}[^.;]*?\bto\s+[-+\u2212]?{_NUM_RE}", re.I)
_UNIT_AFTER = re.compile(rf"([-+\u2212]?{_NUM_RE})\s?(%|x\b|\u00d7|[A-Za-z][\w/.-]*)", re.I)
_NOT_UNITS = frozenset(
    {
        "to",
        "and",
        "or",
        "for",
        "on",
        "in",
        "with",
        "vs",
        "versus",
        "than",
        "from",
        "at",
        "of",
        "by",
        "while",
        "whereas",
        "compared",
        "across",
        "over",
        "under",
        "within",
        "when",
        "after",
        "before",
        "per",
        "as",
        "is",
        "are",
        "was",
        "were",
    }
)


def _unused_alike(text: str, check: Check) -> str:
    """A number of ``text`` with the same unit as a value the check uses ("from 16 to 7 bytes
    per parameter, or 5 bytes ...": 5 bytes) that the check does not use, or ""."""
    used = _used_numbers(check)

    def is_used(value: float) -> bool:
        return any(abs(value - u) <= 1e-6 * max(value, u, 1e-12) for u in used)

    found = []
    for m in _UNIT_AFTER.finditer(text):
        unit = m.group(2).lower()
        if unit in _NOT_UNITS:
            continue
        try:
            value = abs(float(m.group(1).replace("\u2212", "-").replace(",", "")))
        except ValueError:
            continue
        found.append((value, unit, m.group(0)))
    units = {unit for value, unit, _ in found if is_used(value)}
    return next((t for value, unit, t in found if unit in units and not is_used(value)), "")


_GENERIC_NAME = re.compile(r"(?:subject|baseline)(?:_\d+)?$")
_SETTING_WORDS = re.compile(r"\b(?:threshold|cut-?off|budget|learning rate|batch size)\b", re.I)


def _fragment_name(name: str) -> bool:
    """A quantity name that is a piece of the sentence, not a name: a function word in it, or
    more than three words ("trains_in_3_minutes_to_1", "specifically", "and")."""
    words = [w for w in name.split("_") if w and not w.isdigit()]
    return not words or len(words) > 3 or any(w in _FRAGMENT_WORDS for w in words)


def confidence_gate(quote: str, check: Check) -> str:
    """Why the rules do not publish ``check`` for ``quote`` (they are not sure of the claim's
    phrasing), or "" when its shape is one the rules are right on.

    The shapes kept are those whose drafted checks were right on real event claims (docs/checks.md,
    "Measured on real event claims"): a change "from a to b"; a single reported value; a
    conjunction of reported values whose quantities are named by names, not sentence fragments.
    A value shape is not kept when the claim also compares ("best", "outperforms") and the check
    does not, when a number is a setting ("a threshold of 0.95"), or when the subject is unnamed.
    Orderings, differences, ratios, bounds, quantifiers and trends were wrong too often on claims
    the rules had not seen: they abstain, and a person or a capable model writes the check."""
    text = _strip_anchors(normalize_with_map(_superscripts(quote))[0].strip())
    relation = check.relation
    unsure = "no check: the rules are not sure of this phrasing"
    dropped = _unused_alike(text, check)
    if dropped:
        return f"{unsure} (it also reports {dropped!r}, which the check would not use)"
    if relation is Relation.change:
        if len(_FROM_TO.findall(text)) > 1:
            return f"{unsure} (it states more than one change)"
        return ""
    if relation is Relation.equal:
        values = [check]
    elif relation is Relation.all_of and all(p.relation is Relation.equal for p in check.parts):
        values = list(check.parts)
        names = [q.name for q in check.all_quantities()]
        fragment = next((n for n in names if _fragment_name(n)), None)
        if fragment is not None:
            return f"{unsure} (a quantity named {fragment!r} is a piece of the sentence)"
    else:
        return f"{unsure} ({relation.value} checks are not drafted by the rules)"
    if any(_GENERIC_NAME.match(q.name) for v in values for q in v.all_quantities()):
        return f"{unsure} (the value's subject is not named)"
    comparison = _UNSTATED_COMPARISON.search(text)
    if comparison:
        return f"{unsure} (it also compares: {comparison.group(0)!r})"
    relative = _RELATIVE_VALUE.search(text)
    if relative:
        return f"{unsure} (a value is relative to another: {relative.group(0)!r})"
    setting = _SETTING_WORDS.search(text)
    if setting:
        return f"{unsure} (a number may be a setting: {setting.group(0)!r})"
    return ""
