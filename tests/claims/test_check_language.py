"""The check language for theory and scaling claims: rates, identities, exponential laws,
counted and named quantifiers, as records (validation, JSON, words) and grounded in quotes."""

from __future__ import annotations

import json

import pytest

from openrepro.claims.checks import (
    Check,
    Comparator,
    Constant,
    GrowthLaw,
    Order,
    Quantity,
    Rate,
    Relation,
    grounding_problems,
    sweeps_of,
)
from openrepro.errors import CheckError

RATE_QUOTE = "the optimality gap decays as Θ(1/k²) in the number of rounds k"


def _rate_json(**rate: object) -> dict[str, object]:
    return {
        "relation": "rate",
        "quantities": [{"name": "gap"}],
        "subject": "gap",
        "sweep": "k",
        "rate": {"order": "Theta", "symbol": "k", "exponent": {"value": -2, "text": "1/k²"}} | rate,
        "quote": RATE_QUOTE,
    }


def test_a_rate_check_reads_from_the_documented_json_and_round_trips() -> None:
    check = Check.from_json(json.dumps(_rate_json()))
    assert check.rate is not None and check.rate.order is Order.Theta
    assert [c.value for c in check.constants()] == [-2]
    assert grounding_problems(check) == []
    assert Check.from_json(check.to_json()) == check
    assert sweeps_of(check) == {"gap": "k"}  # the subject is logged once per point of k
    assert check.describe() == "gap = \u0398(k^-2) in k (log-log exponent, within 0.1)"
    # the Greek letters and any case are read as the order
    assert Check.from_json(_rate_json(order="\u03a9")).rate.order is Order.Omega  # type: ignore[union-attr]
    assert Check.from_json(_rate_json(order="o")).rate.order is Order.O  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"rate": None}, "rate needs its rate"),
        ({"sweep": ""}, "rate needs the swept variable"),
        ({"comparator": "le"}, "rate states its bound in rate"),
        ({"trend": "decreasing"}, "rate takes no trend"),
        ({"rate": {"order": "Beta", "exponent": {"value": 1, "text": "k"}}}, "rate.order"),
        ({"rate": {"order": "O"}}, "rate.exponent"),
    ],
)
def test_inconsistent_rate_checks_are_refused_with_the_reason(
    change: dict[str, object], problem: str
) -> None:
    data = _rate_json() | change
    with pytest.raises(CheckError, match=problem):
        Check.from_json(data)


@pytest.mark.parametrize(
    ("quote", "symbol", "exponent", "logs", "grounded"),
    [
        ("the gap decays as O(1/T)", "T", ("O(1/T)", -1), None, True),
        ("the gap decays as O(1/T)", "T", ("O(1/T)", 1), None, False),  # the sign is read
        ("regret is O(\\sqrt{T})", "T", ("O(\\sqrt{T})", 0.5), None, True),
        ("error O(log T / T)", "T", ("O(log T / T)", -1), ("log T", 1), True),
        ("error O(log T / T)", "T", ("O(log T / T)", -1), ("log T", 2), False),
        ("the bound O(d/\u221aT) holds", "T", ("O(d/\u221aT)", -0.5), None, True),
        ("the bound O(d/\u221aT) holds", "d", ("O(d/\u221aT)", 1), None, True),
        ("the bound O(d/\u221aT) holds", "n", ("O(d/\u221aT)", 0), None, False),
        ("it stays O(1) as T grows", "T", ("O(1)", 0), None, True),
        ("the rate T^{-1/2} is optimal", "T", ("T^{-1/2}", -0.5), None, True),
        ("the gap decays as O(1/T)", "T", ("O(1/k)", -1), None, False),  # not in the quote
    ],
)
def test_a_rates_exponents_are_grounded_on_its_symbol(
    quote: str,
    symbol: str,
    exponent: tuple[str, float],
    logs: tuple[str, float] | None,
    grounded: bool,
) -> None:
    rate = Rate(
        order=Order.O,
        symbol=symbol,
        exponent=Constant(value=exponent[1], text=exponent[0]),
        log_exponent=Constant(value=logs[1], text=logs[0]) if logs else None,
    )
    check = Check(
        relation=Relation.rate, quantities=[Quantity(name="gap")], subject="gap", sweep="T",
        rate=rate, quote=quote,
    )  # fmt: skip
    assert (grounding_problems(check) == []) is grounded


def _identity(**fields: object) -> Check:
    return Check(
        relation=Relation.identity,
        quantities=[Quantity(name="max_error")],
        subject="max_error",
        **fields,
    )  # type: ignore[arg-type]


def test_an_identity_takes_its_tolerance_from_the_quote_or_the_organizer() -> None:
    assert _identity().identity_tolerance() == 1e-9
    stated = _identity(constant=Constant(value=1e-12, text="1e-12"),
                       quote="the densities agree to within 1e-12")  # fmt: skip
    assert stated.identity_tolerance() == 1e-12 and grounding_problems(stated) == []
    assert "|max_error| <= 1e-12" in stated.describe()
    data = json.loads(_identity(tolerance={"abs": 1e-6}).to_json())  # type: ignore[arg-type]
    assert Check.from_json(data).identity_tolerance() == 1e-6
    with pytest.raises(CheckError, match="identity takes no comparator"):
        Check.from_json(data | {"comparator": "le"})
    with pytest.raises(CheckError, match="compares a quantity with a constant"):
        Check.from_json(data | {"quantities": [{"name": "max_error"}, {"name": "b"}],
                                "baselines": ["b"]})  # fmt: skip


def test_an_exponential_law_is_a_growth_law_with_an_optional_base() -> None:
    check = Check(
        relation=Relation.growth, quantities=[Quantity(name="states")], subject="states",
        law=GrowthLaw.exponential, sweep="horizon",
    )  # fmt: skip
    assert check.describe() == "states grows exponentially in horizon"
    assert Check.from_json(check.to_json()) == check
    with pytest.raises(CheckError, match="base: positive, not 1"):
        Check.from_json(json.loads(check.to_json()) | {"constant": {"value": 1, "text": "1"}})


def _per_task(**fields: object) -> Check:
    inner = Check(
        relation=Relation.bound, quantities=[Quantity(name="success", sweep="task")],
        subject="success", comparator=Comparator.ge, constant=Constant(value=90, text="90%"),
    )  # fmt: skip
    return Check(relation=Relation.for_all, sweep="task", inner=inner, **fields)  # type: ignore[arg-type]


def test_counted_and_named_quantifiers_are_grounded_and_validated() -> None:
    quote = "at least 90% success in 9 of 10 tasks, across four datasets: CIFAR-10, SVHN, STL-10"
    counted = _per_task(count=Constant(value=10, text="10"), at_least=Constant(value=9, text="9"))
    assert grounding_problems(counted, quote) == []
    assert counted.describe().startswith("for at least 9 of 10 task: ")
    assert Check.from_json(counted.to_json()) == counted
    words = _per_task(count=Constant(value=4, text="four"))
    assert grounding_problems(words, quote) == []  # a number word grounds a count
    assert grounding_problems(words.model_copy(update={"count": Constant(value=3, text="four")}),
                              quote) != []  # fmt: skip
    named = _per_task(labels=["CIFAR-10", "SVHN", "STL-10"])
    assert grounding_problems(named, quote) == []
    assert grounding_problems(named, "at least 90% on CIFAR-10 and SVHN") == [
        "setting 'STL-10' is not named in the quote"
    ]
    assert "in {CIFAR-10, SVHN, STL-10}" in named.describe()
    for fields, problem in [
        ({"count": {"value": 2.5, "text": "2.5"}}, "whole number"),
        ({"count": {"value": 3, "text": "3"}, "at_least": {"value": 4, "text": "4"}},
         "at_least cannot exceed count"),
        ({"labels": ["A", "a"]}, "labels must be distinct"),
        ({"labels": ["A", "B"], "count": {"value": 3, "text": "3"}}, "but 2 settings are named"),
        ({"count": {"value": 3, "text": "3"}, "unbounded": True}, "cannot be open-ended"),
    ]:  # fmt: skip
        with pytest.raises(CheckError, match=problem):
            Check.from_json(json.loads(_per_task().to_json()) | fields)
    with pytest.raises(CheckError, match="only for_all has labels"):
        Check.from_json(json.loads(counted.inner.to_json()) | {"labels": ["A"]})  # type: ignore[union-attr]


def test_checks_stored_before_the_new_fields_load_and_keep_their_form() -> None:
    stored = (
        '{"constant": {"text": "0.75", "value": 0.75}, "comparator": "lt", "quantities": '
        '[{"name": "loss"}], "relation": "bound", "subject": "loss"}'
    )
    check = Check.from_json(stored)
    dumped = check.model_dump(mode="json")
    assert not {"rate", "labels", "count", "at_least"} & set(dumped)
    assert json.loads(check.to_json()) == json.loads(stored)


def test_rates_as_papers_write_them_are_read_and_grounded() -> None:
    quote = "regret O(T^{2/3}), error 𝒪(1/(nT)) and O(\\sqrt{d/n}) samples"
    for symbol, value, text in [("T", 0.667, "O(T^{2/3})"), ("T", -1, "𝒪(1/(nT))"),
                                ("n", -1, "𝒪(1/(nT))"), ("n", -0.5, "O(\\sqrt{d/n})")]:  # fmt: skip
        rate = Rate(order=Order.O, symbol=symbol, exponent=Constant(value=value, text=text))
        check = Check(
            relation=Relation.rate, quantities=[Quantity(name="gap")], subject="gap",
            sweep=symbol, rate=rate,
        )  # fmt: skip
        assert grounding_problems(check, quote) == [], (symbol, text)
    wrong = Rate(order=Order.O, symbol="T", exponent=Constant(value=0.6, text="O(T^{2/3})"))
    assert grounding_problems(
        Check(relation=Relation.rate, quantities=[Quantity(name="gap")], subject="gap",
              sweep="T", rate=wrong), quote) != []  # fmt: skip


def test_a_rate_is_read_from_a_quote_grounded_by_construction() -> None:
    quote = "the excess risk is O(log T / T) while the gap decays as \u0398(1/k\u00b2)"
    rate = Rate.read(quote)
    assert rate is not None and (rate.order, rate.symbol) == (Order.O, "T")
    assert (rate.exponent.value, rate.log_exponent.value if rate.log_exponent else None) == (
        -1, 1,
    )  # fmt: skip
    gap = Rate.read(quote, symbol="k")
    assert gap is not None and (gap.order, gap.exponent.value) == (Order.Theta, -2)
    for read, sweep in ((rate, "T"), (gap, "k")):
        check = Check(relation=Relation.rate, quantities=[Quantity(name="y")], subject="y",
                      sweep=sweep, rate=read, quote=quote)  # fmt: skip
        assert grounding_problems(check) == []
    assert Rate.read("the bound O(d/\u221aT) holds") is None  # two variables: say which
    assert Rate.read("the bound O(d/\u221aT) holds", symbol="T").exponent.value == -0.5  # type: ignore[union-attr]
    assert Rate.read("grows as k^2 with no order") is None
