"""The reason an inconclusive verdict gives: a claim without a check (N0, never compared with
the numbers of its text), a check whose quantities bind nothing (R1-R3)."""

from __future__ import annotations

from attacks import base_claim, clean

from openrepro.claims.checks import Check, Quantity, Relation
from openrepro.claims.records import ClaimView
from openrepro.judge.engine import NO_CHECK_RULE, JudgeCase, judge_claim

TEXT = "Our method outperforms LoRA."


def _no_number(check: Check | None = None) -> ClaimView:
    claim = base_claim(TEXT, TEXT).model_copy(update={"reported": []})
    return claim.model_copy(update={"check": check.for_claim("p1/C1") if check else None})


def test_a_failed_run_is_the_reason_when_the_check_binds_nothing() -> None:
    record = clean("verified")
    for run in record.runs:
        run.exit_code = 1  # every seed now comes from a failed run
    ordering = Check(relation=Relation.ordering, subject="accuracy", baselines=["lora"],
                     quantities=[Quantity(name="accuracy"), Quantity(name="lora")])  # fmt: skip
    judged = judge_claim(JudgeCase(record=record, view=_no_number(ordering)))
    assert judged.decision.verdict == "inconclusive"
    assert judged.decision.rule == "R1" and "run_failed" in judged.decision.flags
    # without a check, the reason is the missing check, whatever the runs did
    judged = judge_claim(JudgeCase(record=record, view=_no_number()))
    assert (judged.decision.verdict, judged.decision.rule) == ("inconclusive", NO_CHECK_RULE)


def test_a_claim_without_a_check_is_never_compared_with_its_text() -> None:
    """The old fallback compared the first metric logged with the first number of the text:
    here the seeds match the claim's 88.1, and still nothing is decided without a check."""
    claim = base_claim().model_copy(update={"check": None})
    assert claim.reported and claim.reported[0].value == 88.1
    judged = judge_claim(JudgeCase(record=clean("verified"), view=claim))
    assert (judged.decision.verdict, judged.decision.rule) == ("inconclusive", NO_CHECK_RULE)
    assert judged.decision.rationale.startswith("no check yet")
    assert judged.evidence == [] and judged.details == {}
    falsifying = judge_claim(
        JudgeCase(record=clean("falsified"), view=claim)
    )  # seeds near 70 against 88.1
    assert falsifying.decision.verdict == "inconclusive"
    # the same seeds under the claim's check are decided
    assert (
        judge_claim(JudgeCase(record=clean("verified"), view=base_claim())).decision.verdict
        == "verified"
    )


def test_with_usable_seeds_the_unbound_quantities_are_the_reason() -> None:
    ordering = Check(relation=Relation.ordering, subject="ours", baselines=["lora"],
                     quantities=[Quantity(name="ours"), Quantity(name="lora")])  # fmt: skip
    judged = judge_claim(JudgeCase(record=clean("verified"), view=_no_number(ordering)))
    assert (judged.decision.verdict, judged.decision.rule) == ("inconclusive", "R3")
    # the cause, per quantity: which one got no value, and why
    assert judged.decision.rationale.startswith("no value bound for quantity ours (no column")
    assert "no value bound for quantity lora (" in judged.decision.rationale
