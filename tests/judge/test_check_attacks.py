"""Attacks aimed at checks (the check block of ``attacks.py``): each clean base is judged by its
check (rule K) to the gold the block states, and no attack changes that verdict. The flips are
printed (``pytest -s``); ``test_attacks.py`` runs the same attacks with every other one."""

from __future__ import annotations

import pytest
from attacks import CHECK_BASES, CheckBase, check_attacks, check_base, checked_claim

from openrepro.judge.engine import JudgeCase, judge_claim


@pytest.mark.parametrize("base", list(CHECK_BASES))
def test_each_clean_base_is_decided_by_its_check(base: CheckBase) -> None:
    judged = judge_claim(JudgeCase(record=check_base(base), view=checked_claim(base)))
    assert judged.decision.verdict == CHECK_BASES[base], judged.decision
    assert judged.decision.rule.startswith("K:"), judged.decision
    assert judged.details["check"]["claim_id"] == "p1/C1"


def test_no_attack_on_a_check_flips_its_verdict() -> None:
    attacks = check_attacks()
    assert len(attacks) >= 20 and len({a.name for a in attacks}) == len(attacks)
    flips = {}
    for attack in attacks:
        assert attack.claim.check is not None
        judged = judge_claim(JudgeCase(record=attack.record, view=attack.claim))
        if judged.decision.verdict != attack.gold:
            flips[attack.name] = (attack.gold, judged.decision.verdict, judged.decision.rule)
    print(f"\ncheck attacks: {len(attacks)}, flips: {len(flips)} {flips}")
    assert flips == {}
