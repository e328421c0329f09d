"""Grounding: every constant of a check is stated in the claim's verbatim quote."""

from __future__ import annotations

import pytest

from openrepro.claims.checks import (
    Check,
    Comparator,
    Constant,
    Quantity,
    Relation,
    grounding_problems,
    is_grounded_constant,
    require_grounded,
)
from openrepro.claims.values import find_numbers
from openrepro.errors import CheckError

QUOTE = "APT converged about 8x faster than LoRA+Prune at 60% sparsity, reaching a ﬁnal 1.01e4."


@pytest.mark.parametrize(
    ("value", "text", "grounded"),
    [
        (8, "8x", True),
        (60, "60%", True),
        (0.6, "60%", True),  # a rate may be logged as a fraction
        (-0.6, "60%", True),  # "60% less": a negative relative difference
        (10100, "1.01e4", True),
        (9, "8x", False),  # the text is there, the value is not what it says
        (7, "7x", False),  # not in the quote
        (6, "6", False),  # "6" occurs only inside "60%"
    ],
)
def test_constants_must_be_stated_in_the_quote(value: float, text: str, grounded: bool) -> None:
    assert is_grounded_constant(Constant(value=value, text=text), QUOTE) is grounded


def test_every_problem_is_named_and_require_grounded_refuses() -> None:
    check = Check(
        relation=Relation.difference,
        quantities=[Quantity(name="a"), Quantity(name="b")],
        subject="a",
        baselines=["b"],
        comparator=Comparator.between,
        constant=Constant(value=2, text="2"),
        upper=Constant(value=6, text="6%"),
        quote="FOA is 2-6% higher than SAR",
    )
    assert grounding_problems(check) == []
    assert require_grounded(check) is check
    with pytest.raises(CheckError, match=r"constant 2 \('2'\) is not stated"):
        require_grounded(check, "FOA is 3-6% higher than SAR")
    assert grounding_problems(check, "") == [
        "the check has constants but no quote to ground them in"
    ]


def test_the_shared_number_reader_skips_identifiers_and_reads_exponents() -> None:
    found = [
        (m.text, m.value)
        for m in find_numbers(
            "Mixtral-8x7B on ViT-B/16 and CIFAR-10 (10-shot) reaches ~66.59%, 2 x 10^5 and 4.5k"
        )
    ]
    assert found == [("66.59%", 66.59), ("2 x 10^5", 200000.0), ("4.5k", 4500.0)]


def test_a_number_inside_a_formula_of_symbols_grounds_nothing() -> None:
    quote = "The miss rate is at least 1 - M/|V|, and Wombat reaches 1 run in 2.1x-2.4x less time."
    assert not is_grounded_constant(Constant(value=1, text="1"), "the bound is 1 - M/|V|.")
    assert is_grounded_constant(Constant(value=1, text="1"), quote)  # "reaches 1 run"
    assert is_grounded_constant(Constant(value=2.4, text="2.4x"), quote)  # a range, no formula
    check = Check(relation=Relation.bound, quantities=[Quantity(name="miss")], subject="miss",
                  comparator=Comparator.ge, constant=Constant(value=1, text="1"))  # fmt: skip
    (problem,) = grounding_problems(check, "The miss rate is at least 1 - M/|V|.")
    assert "only inside a formula of symbols" in problem


def test_an_order_of_magnitude_grounds_its_ends_and_a_word_grounds_its_number() -> None:
    quote = "Wombat keeps the drift at roughly 1e-6 with zero restarts, ranking third."
    low, high = 1e-6 / 10**0.5, 1e-6 * 10**0.5
    assert is_grounded_constant(Constant(value=low, text="1e-6"), quote)
    assert is_grounded_constant(Constant(value=high, text="1e-6"), quote)
    assert not is_grounded_constant(Constant(value=high, text="1e-6"), "drift at 1e-6")
    assert is_grounded_constant(Constant(value=0, text="zero"), quote)
    assert is_grounded_constant(Constant(value=3, text="third"), quote)
    assert not is_grounded_constant(Constant(value=4, text="third"), quote)
