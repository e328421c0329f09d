"""The reason an inconclusive verdict gives when the claim states no number to compare with."""

from __future__ import annotations

from attacks import base_claim, clean

from openrepro.claims.checks import Check, Quantity, Relation
from openrepro.claims.records import ClaimView
from openrepro.judge.engine import judge_claim

TEXT = "Our method outperforms LoRA."


def _no_number(check: Check | None = None) -> ClaimView:
    claim = base_claim(TEXT, TEXT).model_copy(update={"reported": []})
    return claim.model_copy(update={"check": check.for_claim("p1/C1") if check else None})


def test_a_failed_run_is_the_reason_even_without_a_reported_number() -> None:
    record = clean("verified")
    for run in record.runs:
        run.exit_code = 1  # every seed now comes from a failed run
    ordering = Check(relation=Relation.ordering, subject="accuracy", baselines=["lora"],
                     quantities=[Quantity(name="accuracy"), Quantity(name="lora")])  # fmt: skip
    for claim in (_no_number(), _no_number(ordering)):
        judged = judge_claim(record, claim)
        assert judged.decision.verdict == "inconclusive"
        assert judged.decision.rule == "R1" and "run_failed" in judged.decision.flags


def test_with_usable_seeds_the_missing_number_is_the_reason() -> None:
    judged = judge_claim(clean("verified"), _no_number())
    assert (judged.decision.verdict, judged.decision.rule) == ("inconclusive", "R3")
    assert judged.decision.rationale == "the claim reports no value to compare with"
