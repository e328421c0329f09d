"""Grounding: every constant of a check appears in the claim's verbatim quote.

A :class:`~openrepro.claims.checks.records.Constant` is grounded in a quote when

1. its ``text`` occurs in the quote (after the presentation-only normalisation of
   :func:`openrepro.claims.text.normalize_with_map`: ligatures, whitespace, soft hyphens), and
2. the quote states a number there (:func:`openrepro.claims.values.find_numbers`, the one
   number reader of the claims) whose value is the constant's ``value``, or its hundredth when
   the number is a percentage (``"80%"`` grounds 80 and 0.8: a rate may be logged either way),
   or an end of its order of magnitude when the quote writes one ("roughly 1e-5" grounds
   1e-5/√10 and 1e-5·√10: :func:`~openrepro.claims.values.find_magnitudes`); a number that is a
   term of a formula of symbols ("the 1 of 1 - M/|V|",
   :func:`~openrepro.claims.values.in_formula`) states no value and grounds nothing;
   or a power of a variable there whose exponent is the value
   (:func:`~openrepro.claims.values.find_powers`: ``"compute^0.5"`` grounds 0.5, ``"1/k²"``
   grounds -2); or, for a quantifier's ``count`` and ``at_least``, a number word ("four"); or,
   for a constant written as a word ("zero", "three", "third", "a third"), that word
   (:func:`~openrepro.claims.values.find_number_words`).

A ``rate`` check's exponent and log exponent are read on the rate's own ``symbol``: ``"O(d/√T)"``
grounds the exponent -0.5 of ``T`` and 1 of ``d``; ``"O(log T / T)"`` grounds the exponent -1 and
the log exponent 1 of ``T``; ``"O(1)"`` grounds the exponent 0. The ``labels`` of a ``for_all``
(named settings: "CIFAR-10", "SVHN") must each occur in the quote (case aside).

A check drafted by rules or by a model that fails grounding is no check (the drafters return
None with the reason); one written by an organizer is refused with a :class:`CheckError`.
"""

from __future__ import annotations

import bisect
import math
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from openrepro.claims.checks.records import Check, Constant
from openrepro.claims.text import normalize_with_map
from openrepro.claims.values import (
    NumberMention,
    PowerMention,
    find_compound_numbers,
    find_count_words,
    find_magnitudes,
    find_number_words,
    find_numbers,
    find_powers,
    find_record_counts,
    find_suffixed_numbers,
    in_formula,
    magnitude_range,
    parse_power,
    slashed_labels,
)
from openrepro.errors import CheckError

__all__ = ["grounding_problems", "is_grounded_constant", "label_named", "require_grounded"]


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _close_exponent(a: float, b: float) -> bool:
    """An exponent as a check writes it: ``T^{2/3}`` is 0.667 (to 3 decimals) as well."""
    return math.isclose(a, b, abs_tol=5e-4)


def _number_values(mention: NumberMention) -> list[float]:
    values = [mention.value, -mention.value]  # "drops by 5" may be written as -5
    # "8 percentage points" between values given as fractions of one is 0.08 too
    if mention.unit in {"%", "pp", "percentage points", "percentage point", "percentage-points"}:
        values += [mention.value / 100, -mention.value / 100]
    return values


def _magnitude_values(mention: NumberMention) -> list[float]:
    """The ends of an order of magnitude ("roughly 1e-5": :func:`find_magnitudes`)."""
    return list(magnitude_range(mention.value))


def _power_values(mention: PowerMention) -> list[float]:
    return list(mention.powers.values())


def _grounded(
    constant: Constant,
    quote: str,
    readers: list[tuple[Callable[[str], Sequence[Any]], Callable[[Any], Sequence[float | None]]]],
    *,
    formulas: bool = False,
) -> bool:
    text, _ = normalize_with_map(constant.text)
    hay, where = normalize_with_map(quote)
    text = text.strip()
    if not text:
        return False
    # mentions read on the normalised quote, and on the quote as written with their offsets
    # carried over: normalisation (NFKC) turns "10⁶" into "106" and "k²" into "k2"
    # (superscripts and other number signs: the normalised reading is wrong, so not used)
    superscripts = any(unicodedata.category(ch) == "No" for ch in quote)
    found = [] if superscripts else [(m, values) for read, values in readers for m in read(hay)]
    for read, values in readers:
        for mention in read(quote):
            start = bisect.bisect_left(where, mention.start)
            end = bisect.bisect_left(where, mention.end)
            found.append((mention.model_copy(update={"start": start, "end": end}), values))
    position = hay.find(text)
    while position >= 0:
        for mention, values in found:
            if (
                not formulas
                and isinstance(mention, NumberMention)
                and in_formula(hay, mention.start, mention.end)
            ):
                continue  # "1 - M/|V|": a number inside a formula of symbols states no value
            overlaps = mention.start < position + len(text) and position < mention.end
            close = _close_exponent if isinstance(mention, PowerMention) else _close
            if overlaps and any(
                v is not None and close(constant.value, v) for v in values(mention)
            ):
                return True
        position = hay.find(text, position + 1)
    return False


def is_grounded_constant(constant: Constant, quote: str, *, counts: bool = False) -> bool:
    """Whether ``constant`` is stated in ``quote`` (see the module docstring); ``counts``: a
    number word ("four") grounds it too."""
    readers: list[
        tuple[Callable[[str], Sequence[Any]], Callable[[Any], Sequence[float | None]]]
    ] = [(find_numbers, _number_values), (find_powers, _power_values)]
    if counts:
        readers.append((find_count_words, _number_values))
    if _suffixed(constant):
        readers.append((find_suffixed_numbers, _number_values))
    if _worded(constant):
        readers.append((find_number_words, _number_values))
    readers.append((find_compound_numbers, _number_values))  # "90k-token", "a 5-point gain"
    readers.append((find_record_counts, _number_values))  # "wins 50/0": 50 and 0
    readers.append((find_magnitudes, _magnitude_values))  # "roughly 1e-5": 1e-5/√10 ... 1e-5·√10
    return _grounded(constant, quote, readers)


def _suffixed(constant: Constant) -> bool:
    """Whether the constant is written with a letter suffix glued on (``28U``): only such a
    constant is grounded by a number the quote writes so (never ``3`` by ``3D``)."""
    return any(m.text == constant.text.strip() for m in find_suffixed_numbers(constant.text))


def _in_formula_only(constant: Constant, quote: str) -> bool:
    """Whether ``constant`` would be grounded by a number that is a term of a formula of
    symbols ("1" of "1 - M/|V|"), and by nothing else."""
    return _grounded(constant, quote, [(find_numbers, _number_values)], formulas=True)


def _worded(constant: Constant) -> bool:
    """Whether the constant is a number written as a word ("zero", "three", "third", "a
    third"): only such a constant is grounded by the words of the quote."""
    return any(m.text == constant.text.strip() for m in find_number_words(constant.text))


def label_named(label: str, quote: str) -> bool:
    """Whether ``quote`` names the setting ``label`` (case aside): as written, or inside a
    slashed label (``CIFAR-100`` in ``CIFAR-10/100``)."""
    needle = normalize_with_map(label)[0].strip().lower()
    text = normalize_with_map(quote)[0]
    hay = " ".join([text, *slashed_labels(text)]).lower()
    return bool(needle) and needle in hay


def _rate_grounded(constant: Constant, quote: str, symbol: str, *, log: bool) -> bool:
    def values(mention: PowerMention) -> list[float | None]:
        return [mention.log_power(symbol) if log else mention.exponent(symbol)]

    if _grounded(constant, quote, [(find_powers, values)]):
        return True
    # the swept variable's factor copied whole out of a product the reader cannot read as one
    # ("K^-2/3" of "O((ab)^-n K^-2/3)": a symbolic exponent on a constant factor): the factor
    # as the quote writes it, read alone, with the same power of the symbol
    text = normalize_with_map(constant.text)[0].strip()
    if not text or text not in normalize_with_map(quote)[0]:
        return False
    read = parse_power(text)
    if read is None:
        return False
    powers, logs = read
    if symbol not in powers and symbol not in logs:
        return False
    found = logs.get(symbol, 0.0) if log else powers.get(symbol, 0.0)
    return found is not None and math.isclose(found, constant.value, abs_tol=5e-4)


def grounding_problems(check: Check, quote: str | None = None) -> list[str]:
    """Each constant of ``check`` (nested checks included) not stated in ``quote`` (default: the
    check's own ``quote``), as a sentence; empty when the check is grounded."""
    source = check.quote if quote is None else quote
    problems: list[str] = []
    labels = [label for node in check.nodes() for label in node.labels]
    if (check.constants() or labels) and not source.strip():
        return ["the check has constants but no quote to ground them in"]
    special: dict[int, bool] = {}  # id of a constant -> grounded, for rates and counts
    for node in check.nodes():
        for constant in (node.count, node.at_least):
            if constant is not None:
                special[id(constant)] = is_grounded_constant(constant, source, counts=True)
        if node.rate is not None:
            symbol = node.rate.symbol
            special[id(node.rate.exponent)] = _rate_grounded(
                node.rate.exponent, source, symbol, log=False
            )
            if node.rate.log_exponent is not None:
                special[id(node.rate.log_exponent)] = _rate_grounded(
                    node.rate.log_exponent, source, symbol, log=True
                )
    for constant in check.constants():
        grounded = special.get(id(constant))
        if grounded is None:
            grounded = is_grounded_constant(constant, source)
        if not grounded:
            where = (
                "appears in the quote only inside a formula of symbols"
                if _in_formula_only(constant, source)
                else "is not stated in the quote"
            )
            problems.append(f"constant {constant.value:g} ({constant.text!r}) {where}")
    hay = normalize_with_map(source)[0].lower()
    for label in labels:
        if normalize_with_map(label)[0].strip().lower() not in hay and not label_named(
            label, source
        ):
            problems.append(f"setting {label!r} is not named in the quote")
    return problems


def require_grounded(check: Check, quote: str | None = None) -> Check:
    """``check`` itself when grounded, else a :class:`CheckError` naming every problem."""
    problems = grounding_problems(check, quote)
    if problems:
        raise CheckError("check is not grounded: " + "; ".join(problems))
    return check
