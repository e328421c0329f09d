"""openrepro.claims.checks.vetting on its own: what a proposal may say beyond being grounded.
The attacks themselves (two colluding teams, a proposal's free text in pulled files) are in
tests/security/test_hostile_checks.py."""

from __future__ import annotations

from typing import Any

from openrepro.claims.checks import Check, proposal_problems, vacuity_problems
from openrepro.claims.checks.vetting import server_fields, with_defaults


def _check(**fields: Any) -> Check:
    base: dict[str, Any] = {"relation": "bound", "subject": "acc",
                            "quantities": [{"name": "acc"}], "comparator": "ge",
                            "constant": {"value": 88.1, "text": "88.1"}}  # fmt: skip
    return with_defaults(Check.from_json({**base, **fields}))


def test_a_tolerance_the_quote_states_is_taken_and_one_it_does_not_is_refused() -> None:
    quote = "Both runs reach a similar loss, within 0.5 of each other, and memory within 20%."
    comparable = {"relation": "comparable", "subject": "a", "baselines": ["b"],
                  "quantities": [{"name": "a"}, {"name": "b"}], "comparator": None,
                  "constant": None}  # fmt: skip
    assert proposal_problems(_check(**comparable, tolerance={"rel": 0, "abs": 0.5}), quote) == []
    assert proposal_problems(_check(**comparable, tolerance={"rel": 0.2}), quote) == []
    refused = proposal_problems(_check(**comparable, tolerance={"rel": 0, "abs": 0.7}), quote)
    assert refused and "only a tolerance the quote states" in refused[0]
    wide = proposal_problems(_check(**comparable, tolerance={"rel": 0.3}), quote)
    assert wide and "at most 10%" in wide[0]


def test_a_number_of_the_quote_that_is_no_tolerance_does_not_widen_one() -> None:
    quote = "Accuracy is at least 88.1 after 40 epochs."
    problems = proposal_problems(_check(tolerance={"rel": 0, "abs": 40}), quote)
    assert any("at most 4.405" in p for p in problems)


def test_defaults_per_relation_and_what_the_words_show() -> None:
    assert _check().tolerance.rel == 0  # an explicit bound, as the rules draft it
    equal = _check(relation="equal", comparator=None)
    assert equal.tolerance.rel == 0.05 and equal.describe() == "acc = 88.1 (within 5%)"
    both = _check(tolerance={"rel": 0.025, "abs": 0.5})
    assert both.describe() == "acc >= 88.1 (within 2.5% or 0.5, whichever is larger)"


def test_vacuous_checks_are_named_whatever_their_origin() -> None:
    assert vacuity_problems(_check(tolerance={"rel": 0.05})) == []
    assert vacuity_problems(_check(tolerance={"rel": 1.0}))
    ordering = Check.from_json({"relation": "ordering", "subject": "a", "baselines": ["b"],
                                "quantities": [{"name": "a"}, {"name": "b"}],
                                "comparator": "ge", "tolerance": {"rel": 1.0}})  # fmt: skip
    assert any("any value" in p for p in vacuity_problems(ordering))
    rate = Check.from_json({"relation": "rate", "subject": "loss", "quantities": [{"name": "loss"}],
                            "sweep": "T", "tolerance": {"rel": 0, "abs": 1.0},
                            "rate": {"order": "O", "symbol": "T",
                                     "exponent": {"value": -1, "text": "O(1/T)"}}})  # fmt: skip
    assert any("exponent margin" in p for p in vacuity_problems(rate))


def test_a_difference_may_be_negative_and_its_hundredth_is_a_relative_reading() -> None:
    quote = "The error drops by 5 points, and it is 12% faster than the baseline."
    drop = _check(relation="difference", baselines=["b"], comparator="le",
                  quantities=[{"name": "acc"}, {"name": "b"}],
                  constant={"value": -5, "text": "5"})  # fmt: skip
    assert proposal_problems(drop, quote) == []
    faster = _check(relation="difference", relative=True, baselines=["b"], comparator="eq",
                    quantities=[{"name": "acc", "unit": "%"}, {"name": "b"}],
                    constant={"value": 0.12, "text": "12%"})  # fmt: skip
    assert proposal_problems(faster, quote) == []


def test_server_fields_drop_free_text_in_every_nested_check() -> None:
    part = {
        "relation": "bound",
        "subject": "acc",
        "note": "x",
        "quantities": [{"name": "acc", "description": "d", "setting": "s", "dataset": "x"}],
        "comparator": "ge",
        "constant": {"value": 88.1, "text": "88.1"},
        "rule": "organizer",
    }
    check = server_fields(Check.from_json({"relation": "all_of", "parts": [part, part],
                                           "note": "top"}))  # fmt: skip
    for node in check.nodes():
        assert node.note == "" and node.rule == "participant"
        assert all(not (q.description or q.setting or q.dataset) for q in node.quantities)
