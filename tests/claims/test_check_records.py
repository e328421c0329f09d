"""Check records: validation, versioned JSON round-trip, keys per claim, words."""

from __future__ import annotations

import json

import pytest

from openrepro.claims.checks import (
    CHECK_FORMAT,
    Check,
    Comparator,
    Constant,
    Direction,
    Origin,
    Quantity,
    Relation,
    Tolerance,
    metric_key,
)
from openrepro.errors import CheckError


def _ratio() -> Check:
    return Check(
        relation=Relation.ratio,
        quantities=[Quantity(name="apt_speed", unit="1/s"), Quantity(name="lora_speed")],
        subject="apt_speed",
        baselines=["lora_speed"],
        comparator=Comparator.ge,
        constant=Constant(value=8, text="8x"),
        quote="APT converged 8x faster than LoRA",
    )


def test_json_round_trip_keeps_every_field_and_the_format_version() -> None:
    nested = Check(
        relation=Relation.all_of,
        parts=[
            _ratio(),
            Check(
                relation=Relation.for_all,
                sweep="dataset",
                inner=Check(
                    relation=Relation.bound,
                    quantities=[Quantity(name="acc")],
                    subject="acc",
                    comparator=Comparator.ge,
                    constant=Constant(value=90, text="90%"),
                ),
            ),
        ],
    )
    text = nested.to_json()
    assert json.loads(text).get("format", CHECK_FORMAT) == CHECK_FORMAT
    again = Check.from_json(text)
    assert again == nested
    assert [q.name for q in again.all_quantities()] == ["apt_speed", "lora_speed", "acc"]
    assert [c.value for c in again.constants()] == [8, 90]


def test_for_claim_keys_every_quantity_exactly() -> None:
    keyed = _ratio().for_claim("p1/C2")
    assert [q.key for q in keyed.quantities] == [
        "claims/p1/C2/apt_speed",
        "claims/p1/C2/lora_speed",
    ]
    assert metric_key("p1/C2", "apt_speed") == keyed.quantities[0].key
    assert keyed.claim_id == "p1/C2"


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        (
            {
                "relation": "ratio",
                "subject": "a",
                "quantities": [{"name": "a"}],
                "constant": {"value": 8, "text": "8x"},
            },
            "needs a baseline",
        ),
        ({"relation": "bound", "subject": "a", "quantities": [{"name": "a"}]}, "needs a constant"),
        (
            {
                "relation": "equal",
                "subject": "b",
                "quantities": [{"name": "a"}],
                "constant": {"value": 1, "text": "1"},
            },
            "not one of the check's quantities",
        ),
        ({"relation": "all_of", "parts": []}, "at least two parts"),
        ({"relation": "for_all"}, "needs an inner check"),
        ({"relation": "trend", "subject": "a", "quantities": [{"name": "a"}]}, "increasing"),
        (
            {
                "relation": "equal",
                "subject": "A b",
                "quantities": [{"name": "A b"}],
                "constant": {"value": 1, "text": "1"},
            },
            "slug",
        ),
    ],
)
def test_inconsistent_checks_are_refused_with_the_reason(
    fields: dict[str, object], problem: str
) -> None:
    with pytest.raises(CheckError, match=problem):
        Check.from_json(json.dumps(fields))


def test_unknown_format_and_bad_json_are_clear_errors() -> None:
    with pytest.raises(CheckError, match="format 99"):
        Check.from_json('{"format": 99, "relation": "human"}')
    with pytest.raises(CheckError, match="not JSON"):
        Check.from_json("{relation")
    with pytest.raises(CheckError, match="JSON object"):
        Check.from_json("[1, 2]")


def test_describe_says_the_relation_in_words() -> None:
    assert _ratio().describe() == "apt_speed / lora_speed >= 8 (within 5%)"
    human = Check(relation=Relation.human, note="images look like the target domain")
    assert "human judgement" in human.describe()
    # an ordering without a comparator reads in the metric's direction
    latency = [Quantity(name="cached_latency"), Quantity(name="prior_latency")]
    lower = Check(relation=Relation.ordering, quantities=latency, subject="cached_latency",
                  baselines=["prior_latency"], direction=Direction.lower)  # fmt: skip
    assert lower.describe() == "cached_latency lower than prior_latency"
    strict = lower.model_copy(update={"comparator": Comparator.gt})
    assert strict.describe() == "cached_latency higher than prior_latency"


def test_revise_bumps_the_revision_and_validates() -> None:
    first = _ratio()
    second = first.revise(
        origin=Origin.organizer, note="the paper means at least 8x", tolerance=Tolerance(rel=0.1)
    )
    assert (second.revision, second.origin, second.tolerance.rel) == (2, Origin.organizer, 0.1)
    assert first.revision == 1  # the stored revision is untouched
    with pytest.raises(CheckError, match="needs a baseline"):
        second.revise(origin=Origin.organizer, baselines=[])
