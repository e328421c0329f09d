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
