"""What a check may say beyond being grounded: no check any value satisfies, and a participant's
proposal says what the quote says, within the tolerance its relation allows, with no free text.

Grounding (:mod:`openrepro.claims.checks.grounding`) shows that every constant is *stated* in
the quote; it does not show that the check asserts what the quote asserts. Two colluding
confirmed teams could otherwise confirm a check that holds whatever is measured.

**Every check** (:func:`vacuity_problems`, applied to an organizer's check and to proposals):

- a tolerance as large as the number it is about (``margin(c) >= |c|``: ``acc >= 88.1`` with
  ``tolerance.abs = 1e9``, or ``rel = 1``) lets any value from 0 up through: refused;
- an ordering (``ge``/``le``) or a comparison whose relative tolerance is 100 % of the
  baseline lets any value of the same sign through: refused;
- a rate whose exponent margin is 1 or more cannot tell ``T^-1`` from ``T^0``: refused.

**A participant's proposal** (:func:`proposal_problems`), on top of grounding:

- its tolerance is within what its relation allows (:data:`MAX_REL_TOL`; an absolute tolerance
  within that share of the check's constant, or a tolerance the quote states ("within 0.5",
  "± 2%"); for a relation with no constant, only a tolerance the quote states; for
  ``identity``, at most
  :data:`~openrepro.claims.checks.records.IDENTITY_ABS_TOL`: a stated residual is its
  constant), and a node that gives none gets its relation's default (:func:`with_defaults`:
  none for a bound, as the rules draft an explicit bound, else
  :data:`~openrepro.claims.checks.records.DEFAULT_REL_TOL`);
- a constant keeps the quote's **sign** in an equality, bound, ratio or change
  (``acc >= -88.1`` grounded by "88.1" is refused; a difference may be negative: "drops by 5");
- a percentage's hundredth (0.881 from "88.1%") is refused for a quantity whose unit is ``%``
  (the quote's unit): as a fraction it is fine, and the judge refuses to compare it with
  values logged in percent (``unit_mismatch``);
- a rate's **order** is the one the quote writes at the expression (``O`` vs ``Ω`` vs ``Θ``);
  where the quote writes none, only ``Theta``;
- a bound's **comparator** agrees with the words before its number ("at least 40.5" is not
  ``le``);
- **free text** never reaches another participant: :func:`server_fields` drops the quantities'
  descriptions, settings and datasets and the note, and sets ``rule`` (the origin is set by
  :mod:`openrepro.claims.proposals`); units, sweeps, symbols and quantity names must be short
  plain words that read as no instruction.
"""

from __future__ import annotations

import math
import re

from openrepro.claims.checks.records import (
    APPROX_DIFF_REL_TOL,
    APPROX_REL_TOL,
    DEFAULT_REL_TOL,
    IDENTITY_ABS_TOL,
    Check,
    Comparator,
    Constant,
    Order,
    Relation,
    Tolerance,
)
from openrepro.claims.text import normalize_with_map
from openrepro.claims.values import find_numbers
from openrepro.errors import CheckError

__all__ = [
    "DEFAULT_TOLERANCE",
    "MAX_REL_TOL",
    "proposal_problems",
    "require_meaningful",
    "server_fields",
    "vacuity_problems",
    "with_defaults",
]

#: the widest relative tolerance a proposal may give each relation (a wider one must be a
#: percentage the quote states, "within 20%"); a rate's is a share of its exponent (at least 1)
MAX_REL_TOL: dict[Relation, float] = {
    Relation.equal: APPROX_REL_TOL,
    Relation.bound: DEFAULT_REL_TOL,
    Relation.difference: APPROX_DIFF_REL_TOL,
    Relation.ratio: APPROX_DIFF_REL_TOL,
    Relation.ordering: DEFAULT_REL_TOL,
    Relation.comparable: APPROX_REL_TOL,
    Relation.change: APPROX_REL_TOL,
    Relation.trend: APPROX_REL_TOL,
    Relation.growth: APPROX_REL_TOL,
    Relation.rate: APPROX_DIFF_REL_TOL,
    Relation.identity: DEFAULT_REL_TOL,  # not used: an identity's residual is absolute
    Relation.for_all: DEFAULT_REL_TOL,
    Relation.exists: DEFAULT_REL_TOL,
    Relation.all_of: DEFAULT_REL_TOL,
    Relation.human: DEFAULT_REL_TOL,
}
#: the tolerance of a proposal's node that gives none
DEFAULT_TOLERANCE: dict[Relation, Tolerance] = {
    relation: Tolerance(rel=0.0) if relation is Relation.bound else Tolerance()
    for relation in Relation
}
_AGAINST_CONSTANT = {
    Relation.equal,
    Relation.bound,
    Relation.difference,
    Relation.ratio,
    Relation.change,
    Relation.growth,
}
_SIGNED = {Relation.equal, Relation.bound, Relation.ratio, Relation.change}
_PERCENT_IS_UNIT = {Relation.equal, Relation.bound, Relation.change}


def _pct(x: float) -> str:
    return f"{x * 100:g}%"


# -- every check ------------------------------------------------------------------------------


def vacuity_problems(check: Check) -> list[str]:
    """Why ``check`` (or a check nested in it) is satisfied by any value, as sentences; empty
    when none is (see the module docstring)."""
    problems: list[str] = []
    for node in check.nodes():
        r, t = node.relation, node.tolerance
        if r in _AGAINST_CONSTANT:
            for c in (node.constant, node.upper):
                if c is None or c.value == 0:
                    continue
                margin = t.margin(c.value)
                if margin >= abs(c.value):
                    problems.append(
                        f"its tolerance ({_pct(t.rel)} or {t.abs:g}: {margin:g}) is as large as "
                        f"the number {c.value:g} itself: any value from 0 to "
                        f"{2 * c.value:g} satisfies {r.value}"
                    )
        uses_baseline = r is Relation.comparable or (
            r is Relation.ordering and node.comparator in {Comparator.ge, Comparator.le}
        )
        if uses_baseline and t.rel >= 1:
            problems.append(
                f"its tolerance ({_pct(t.rel)} of the baseline) lets any value of the "
                f"baseline's sign through: any value satisfies {r.value}"
            )
        if r is Relation.rate and node.rate is not None and node.exponent_margin() >= 1:
            e = node.rate.exponent.value
            problems.append(
                f"its exponent margin {node.exponent_margin():g} cannot tell an exponent of "
                f"{e:g} from {e - 1:g} or {e + 1:g}: any value of the rate near it satisfies it"
            )
    return problems


def require_meaningful(check: Check) -> Check:
    """``check`` itself when some value would fail it, else a :class:`CheckError` saying why."""
    problems = vacuity_problems(check)
    if problems:
        raise CheckError("a check any value satisfies is refused: " + "; ".join(problems))
    return check


# -- a participant's proposal -----------------------------------------------------------------


def with_defaults(check: Check) -> Check:
    """``check`` with its relation's default tolerance (:data:`DEFAULT_TOLERANCE`) in every node
    that was given none."""

    def fill(node: Check) -> Check:
        update: dict[str, object] = {
            "inner": fill(node.inner) if node.inner is not None else None,
            "parts": [fill(p) for p in node.parts],
        }
        if "tolerance" not in node.model_fields_set:
            update["tolerance"] = DEFAULT_TOLERANCE[node.relation]
        return node.model_copy(update=update)

    return fill(check)


def server_fields(check: Check) -> Check:
    """``check`` without a proposal's free text (each node's note, its quantities' descriptions,
    settings and datasets), its ``rule`` set to ``participant``: what another participant may
    read of it is the check's own words, made by the server."""

    def plain(node: Check) -> Check:
        return node.model_copy(
            update={
                "note": "",
                "rule": "participant",
                "quantities": [
                    q.model_copy(update={"description": "", "setting": "", "dataset": ""})
                    for q in node.quantities
                ],
                "inner": plain(node.inner) if node.inner is not None else None,
                "parts": [plain(p) for p in node.parts],
            }
        )

    return plain(check)


#: words an instruction to an agent uses and a unit, a sweep or a quantity's name does not
_INSTRUCTION_WORDS = frozenset(
    {
        "ignore", "disregard", "instruction", "instructions", "organizer", "organizers",
        "organiser", "organisers", "credential", "credentials", "password", "passwords",
        "secret", "secrets", "paste", "binding", "http", "https", "www", "curl", "wget", "ssh",
    }
)  # fmt: skip
_UNIT_CHARS = re.compile(r"[\w%/°.^*·\u00d7²³\- ]{0,16}")  # \u00d7: the multiplication sign
_WORDS = re.compile(r"[\w .,()/^+\-]{1,40}")
_SYMBOL = re.compile(r"[\w\\{}^ ]{0,24}")


def _instruction(text: str) -> bool:
    return bool(set(re.findall(r"[a-z]+", text.lower())) & _INSTRUCTION_WORDS)


def _field_problems(check: Check) -> list[str]:
    problems: list[str] = []
    for node in check.nodes():
        for q in node.quantities:
            if _instruction(q.name.replace("_", " ")):
                problems.append(f"name {q.name!r} reads as an instruction, not a quantity")
            if not _UNIT_CHARS.fullmatch(q.unit) or _instruction(q.unit):
                problems.append(
                    f"unit {q.unit[:40]!r} of {q.name} is not a short plain unit "
                    "(16 characters on one line: letters, digits, % / . ^ * -)"
                )
            if q.sweep and (not _WORDS.fullmatch(q.sweep) or _instruction(q.sweep)):
                problems.append(f"sweep {q.sweep[:40]!r} of {q.name} is not a plain name "
                                "(40 characters on one line)")  # fmt: skip
        if node.sweep and (not _WORDS.fullmatch(node.sweep) or _instruction(node.sweep)):
            problems.append(f"sweep {node.sweep[:40]!r} is not a plain name (40 characters on "
                            "one line)")  # fmt: skip
        symbol = node.rate.symbol if node.rate is not None else ""
        if not _SYMBOL.fullmatch(symbol) or _instruction(symbol):
            problems.append(f"rate symbol {symbol!r} is not a plain variable")
    return problems


#: words that introduce a tolerance: "within 0.5", "± 0.3", "to within 2%"
_TOLERANCE_CUE = re.compile(r"(?:±|\+/-|\+-|within|up to|deviat\w*|error of|tolerance of)\s*$",
                            re.IGNORECASE)  # fmt: skip


def _stated_tolerances(quote: str) -> tuple[list[float], list[float]]:
    """The tolerances the quote states ("within 0.5", "± 2%"): absolute ones as written, and
    relative ones (percentages) as fractions."""
    hay = normalize_with_map(quote)[0]
    absolute: list[float] = []
    relative: list[float] = []
    for m in find_numbers(hay):
        if not _TOLERANCE_CUE.search(hay[max(0, m.start - 20) : m.start]):
            continue
        (relative if m.unit == "%" else absolute).append(
            abs(m.value) / 100 if m.unit == "%" else abs(m.value)
        )
    return absolute, relative


def _stated(value: float, numbers: list[float]) -> bool:
    return any(math.isclose(value, n, rel_tol=1e-9, abs_tol=1e-12) for n in numbers)


def _tolerance_problems(check: Check, quote: str) -> list[str]:
    absolute, relative = _stated_tolerances(quote)
    problems: list[str] = []
    for node in check.nodes():
        r, t = node.relation, node.tolerance
        cap = MAX_REL_TOL[r]
        if t.rel > cap and not _stated(t.rel, relative):
            problems.append(f"tolerance rel {_pct(t.rel)} is more than {r.value} allows: at "
                            f"most {_pct(cap)}, unless the quote states it")  # fmt: skip
        if not t.abs:
            continue
        if r is Relation.identity:
            if t.abs > IDENTITY_ABS_TOL:
                problems.append(
                    f"tolerance abs {t.abs:g} of an identity: at most {IDENTITY_ABS_TOL:g} (a "
                    "residual the quote states is the check's constant)"
                )
            continue
        if r is Relation.rate:
            size = abs(node.rate.exponent.value) if node.rate is not None else 1.0
            most = cap * max(size, 1.0)
            if t.abs > most:
                problems.append(f"tolerance abs {t.abs:g} of a rate's exponent: at most "
                                f"{most:g}")  # fmt: skip
            continue
        sizes = [abs(c.value) for c in (node.constant, node.upper) if c is not None]
        if r in _AGAINST_CONSTANT and sizes:
            most = cap * max(sizes)
            if t.abs > most and not (_stated(t.abs, absolute) and t.abs < max(sizes)):
                problems.append(
                    f"tolerance abs {t.abs:g} is more than {r.value} allows: at most {most:g} "
                    f'({_pct(cap)} of {max(sizes):g}), unless the quote states it ("within", '
                    '"±")'
                )
        elif not _stated(t.abs, absolute):
            problems.append(
                f"tolerance abs {t.abs:g}: {r.value} has no constant to size it, so only a "
                'tolerance the quote states ("within", "±") is taken'
            )
    return problems


def _text_numbers(constant: Constant) -> list[float]:
    return [m.value for m in find_numbers(normalize_with_map(constant.text)[0])]


def _sign_problems(check: Check) -> list[str]:
    problems: list[str] = []
    for node in check.nodes():
        if node.relation not in _SIGNED:
            continue
        for c in (node.constant, node.upper):
            if c is None or c.value == 0:
                continue
            written = _text_numbers(c)
            if written and not any((w < 0) == (c.value < 0) for w in written if w != 0):
                problems.append(f"sign: the quote states {c.text!r}, not {c.value:g}")
    return problems


def _percent_problems(check: Check) -> list[str]:
    problems: list[str] = []
    for node in check.nodes():
        relative = node.relation is Relation.difference and node.relative
        if node.relation not in _PERCENT_IS_UNIT and (
            node.relation is not Relation.difference or relative
        ):
            continue
        units = {q.name: q.unit.strip().lower() for q in node.quantities}
        measured = [units.get(name, "") for name in (node.subject, *node.baselines)]
        if not any(u in {"%", "percent", "pct", "percentage points", "points"} for u in measured):
            continue
        for c in (node.constant, node.upper):
            if c is None or "%" not in c.text:
                continue
            written = [m for m in find_numbers(c.text) if m.unit == "%"]
            hundredth = [m.value != 0 and math.isclose(abs(c.value) * 100, abs(m.value))
                         for m in written]  # fmt: skip
            if written and all(hundredth):
                problems.append(
                    f"unit: the quote's {c.text!r} is {written[0].value:g} in %, the unit of "
                    f"{node.subject}; {c.value:g} is its hundredth (say the unit is a fraction, "
                    "or use the number as written)"
                )
    return problems


_ORDER_SIGNS = re.compile(
    r"(?<![A-Za-z])(\\mathcal\{O\}|\\widetilde\{O\}|\\tilde\{O\}|\\Omega|\\Theta|Omega|Theta|"
    r"[OÕΘΩ])\s*\("
)
_ORDER_OF = {
    "\\mathcal{O}": Order.O, "\\widetilde{O}": Order.O, "\\tilde{O}": Order.O, "O": Order.O,
    "Õ": Order.O, "\\Omega": Order.Omega, "Omega": Order.Omega, "Ω": Order.Omega,
    "\\Theta": Order.Theta, "Theta": Order.Theta, "Θ": Order.Theta,
}  # fmt: skip


def _stated_orders(text: str, quote: str) -> set[Order]:
    """The orders the quote writes at the expression ``text`` (the sign just before it, or at
    its start)."""
    hay, needle = normalize_with_map(quote)[0], normalize_with_map(text)[0].strip()
    found: set[Order] = set()
    for raw in {quote, hay}:
        at = raw.find(needle) if needle else -1
        while at >= 0:
            window = raw[max(0, at - 16) : at + len(needle)]
            bracket = window.find("(", min(16, at))
            signs = list(_ORDER_SIGNS.finditer(window[: bracket + 1] if bracket >= 0 else window))
            if signs:
                found.add(_ORDER_OF[signs[-1].group(1)])
            at = raw.find(needle, at + 1)
    return found


def _order_problems(check: Check, quote: str) -> list[str]:
    problems: list[str] = []
    for node in check.nodes():
        if node.rate is None:
            continue
        text, order = node.rate.exponent.text, node.rate.order
        stated = _stated_orders(text, quote)
        if stated and order not in stated:
            names = ", ".join(sorted(o.value for o in stated))
            problems.append(f"order: the quote states {names} at {text!r}, not {order.value}")
        elif not stated and order is not Order.Theta:
            problems.append(f"order: the quote states no O, Theta or Omega at {text!r}: a rate "
                            "it does not bound is Theta")  # fmt: skip
    return problems


_GE = r"at least|no less than|not less than|no fewer than|more than|greater than|higher than|" \
      r"above|over|exceed(?:s|ing)?|surpass(?:es|ing)?|≥|>=|>"  # fmt: skip
_LE = r"at most|no more than|not more than|less than|lower than|fewer than|below|under|up to|" \
      r"≤|<=|<"  # fmt: skip
_CUE = re.compile(
    rf"(?:(?P<ge>{_GE})|(?P<le>{_LE}))\s*(?:(?:about|approximately|roughly|around|only|just|"
    r"nearly|almost|~)\s*)?$",
    re.IGNORECASE,
)


def _comparator_problems(check: Check, quote: str) -> list[str]:
    hay = normalize_with_map(quote)[0]
    problems: list[str] = []
    for node in check.nodes():
        op, c = node.comparator, node.constant
        if node.relation is not Relation.bound or c is None:
            continue
        if op not in {Comparator.ge, Comparator.gt, Comparator.le, Comparator.lt}:
            continue
        needle = normalize_with_map(c.text)[0].strip()
        said: set[str] = set()
        at = hay.find(needle) if needle else -1
        while at >= 0:
            cue = _CUE.search(hay[max(0, at - 40) : at])
            if cue:
                said.add("ge" if cue.group("ge") else "le")
            at = hay.find(needle, at + 1)
        side = "ge" if op in {Comparator.ge, Comparator.gt} else "le"
        if said and side not in said:
            words = "at least / above" if "ge" in said else "at most / below"
            problems.append(f"comparator: the quote says {words} {c.text!r}, not {op.value}")
    return problems


def proposal_problems(check: Check, quote: str) -> list[str]:
    """Why a participant's proposal ``check`` (grounded in ``quote``, defaults filled in by
    :func:`with_defaults`) does not say what the quote says (see the module docstring)."""
    return [
        *vacuity_problems(check),
        *_tolerance_problems(check, quote),
        *_sign_problems(check),
        *_percent_problems(check),
        *_order_problems(check, quote),
        *_comparator_problems(check, quote),
        *_field_problems(check),
    ]
