"""Deciding human checks from reviewers' answers (rules H0-H6 of openrepro.evidence.human)."""

from __future__ import annotations

import random

from openrepro.claims.checks import Check, Constant, HumanJudgement, HumanScale, Relation
from openrepro.evidence.human import HumanAnswer, HumanReviews, evaluate_human


def _check(**human: object) -> Check:
    return Check(relation=Relation.human, human=HumanJudgement.model_validate(human))


def _answers(
    reviewer: str,
    role: str,
    truth: list[str],
    *,
    flip_repeats: bool = False,
    seconds: float = 3.0,
    rng: random.Random | None = None,
    repeats: int = 4,
) -> list[HumanAnswer]:
    """A reviewer answering ``truth`` (item i -> answer), then repeating the first ``repeats``
    items; with ``rng`` every answer is a coin flip instead."""
    labels = ["usable", "not usable"]
    out = []
    for slot, item in enumerate([*range(len(truth)), *range(repeats)]):
        answer = rng.choice(labels) if rng else truth[item]
        repeat = slot >= len(truth)
        if repeat and flip_repeats:
            answer = labels[1 - labels.index(answer)]
        out.append(HumanAnswer(reviewer=reviewer, role=role, slot=slot, item=f"i{item}",  # type: ignore[arg-type]
                               answer=answer, shown_answer=answer, repeat=repeat,
                               seconds=seconds))  # fmt: skip
    return out


def _reviews(*answers: list[HumanAnswer]) -> HumanReviews:
    return HumanReviews(task="t", items=30, answers=[a for group in answers for a in group])


USABLE = ["usable"] * 30
HALF = ["usable", "not usable"] * 15


def test_no_answers_needs_a_human() -> None:
    result = evaluate_human(_check(), None)
    assert (result.verdict, result.rule, result.level) == ("inconclusive", "H0", "testimony")
    assert "needs_human" in result.flags


def test_an_organizer_verifies_with_confidence_and_the_level_is_reviewed() -> None:
    result = evaluate_human(_check(), _reviews(_answers("org", "organizer", USABLE)))
    assert (result.verdict, result.rule, result.level) == ("verified", "H4", "reviewed")
    assert result.numbers["k"] == 30 and result.numbers["n"] == 30
    low = result.numbers["low"]
    assert isinstance(low, float) and 0.8 <= low < 1  # exact 95 % interval of 30/30
    assert result.reviewers[0].self_agreement == 1.0


def test_the_participant_alone_decides_at_the_self_recorded_level() -> None:
    result = evaluate_human(_check(), _reviews(_answers("alice", "self", USABLE)))
    assert (result.verdict, result.level) == ("verified", "self-recorded")
    assert "self_reviewed" in result.flags


def test_independent_reviewers_decide_when_there_are_enough_of_them() -> None:
    # the participant says everything is usable; the organizer sees half of it unusable
    result = evaluate_human(
        _check(), _reviews(_answers("alice", "self", USABLE), _answers("org", "organizer", HALF))
    )
    assert (result.verdict, result.rule, result.level) == ("falsified", "H5", "reviewed")
    counted = {r.reviewer: r.counted for r in result.reviewers}
    assert counted == {"alice": False, "org": True}
    assert "self_reviewed" not in result.flags


def test_too_few_items_is_inconclusive() -> None:
    result = evaluate_human(_check(min_items=40), _reviews(_answers("org", "organizer", USABLE)))
    assert (result.verdict, result.rule) == ("inconclusive", "H2")
    assert "too_few_items" in result.flags


def test_a_share_the_interval_straddles_is_inconclusive() -> None:
    truth = ["usable"] * 26 + ["not usable"] * 4  # 87 %: not above 80 % with confidence
    result = evaluate_human(_check(), _reviews(_answers("org", "organizer", truth)))
    assert (result.verdict, result.rule) == ("inconclusive", "H6")


def test_low_agreement_between_reviewers_is_inconclusive() -> None:
    # two independent reviewers, each self-consistent, disagreeing on every other item
    other = ["not usable" if i % 2 == 0 else "usable" for i in range(30)]
    result = evaluate_human(
        _check(min_reviewers=2),
        _reviews(_answers("org", "organizer", HALF), _answers("bob", "invited", other)),
    )
    assert (result.verdict, result.rule) == ("inconclusive", "H3")
    assert "low_agreement" in result.flags
    kappa = result.numbers["kappa"]
    assert isinstance(kappa, float) and kappa < 0


def test_a_reviewer_answering_at_random_is_left_out() -> None:
    rng = random.Random(7)
    randomised = _answers("rnd", "invited", USABLE, rng=rng, repeats=30)
    result = evaluate_human(_check(), _reviews(_answers("org", "organizer", USABLE), randomised))
    by = {r.reviewer: r for r in result.reviewers}
    assert by["rnd"].self_agreement is not None and by["rnd"].self_agreement < 0.8
    assert not by["rnd"].counted and "self-agreement" in by["rnd"].why_not
    assert "low_self_agreement" in result.flags
    assert (result.verdict, result.level) == ("verified", "reviewed")  # the organizer decides
    # alone, the random reviewer decides nothing
    alone = evaluate_human(_check(), _reviews(randomised))
    assert (alone.verdict, alone.rule) == ("inconclusive", "H1")


def test_fast_and_one_sided_answers_are_flagged_not_dropped() -> None:
    result = evaluate_human(
        _check(min_seconds=1.0), _reviews(_answers("org", "organizer", USABLE, seconds=0.2))
    )
    assert {"too_fast", "same_side"} <= set(result.flags)
    assert result.reviewers[0].too_fast == 34 and result.verdict == "verified"


def test_inconsistent_repeats_are_flagged() -> None:
    answers = _answers("org", "organizer", USABLE, repeats=10)
    answers[-1] = answers[-1].model_copy(update={"answer": "not usable"})
    result = evaluate_human(_check(min_self_agreement=0.8), _reviews(answers))
    assert "inconsistent_repeats" in result.flags
    assert result.reviewers[0].self_agreement == 0.9


def test_a_preference_counts_the_method_side_and_a_grounded_share() -> None:
    check = Check(relation=Relation.human, constant=Constant(value=70, text="70%"),
                  human=HumanJudgement(scale=HumanScale.preference))  # fmt: skip
    assert check.human_share() == 0.7
    answers = [
        HumanAnswer(reviewer="org", role="organizer", slot=i, item=f"i{i % 40}",
                    answer="B" if (i % 40) % 10 else "same", shown_answer="left" if i % 2 else
                    "right", repeat=i >= 40)
        for i in range(44)
    ]  # fmt: skip
    result = evaluate_human(check, HumanReviews(task="t", items=40, answers=answers))
    assert result.numbers["k"] == 36 and result.numbers["n"] == 40  # "same" is no preference
    assert result.verdict == "verified"  # 90 %, interval above 70 %
    assert "same_side" not in result.flags


def test_stored_human_checks_without_fields_still_read() -> None:
    old = Check.from_json('{"relation": "human", "note": "images look fine"}')
    assert old.human is None and old.judgement().min_items == 20 and old.human_share() == 0.8
    assert '"human":' not in old.to_json()  # the stored form is unchanged
    # the stored form (model_dump, as claims.check holds it) has no "human" key without fields
    assert "human" not in old.model_dump(mode="json")
    nested = Check.model_validate({"relation": "all_of", "parts": [old, _check(min_items=3)]})
    dumped = nested.model_dump(mode="json")
    assert "human" not in dumped["parts"][0] and dumped["parts"][1]["human"]["min_items"] == 3
    assert Check.model_validate(dumped) == nested
