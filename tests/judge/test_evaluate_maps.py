"""The judge measured on the labelled cases of ``cases_maps.py`` (numbers only in produced
files, or pointed at by an evidence map): every case gets its gold verdict, on the check path."""

from __future__ import annotations

from pathlib import Path

from cases_maps import MAP_CASES, build_map_cases

from openrepro.challenge import ChallengeContext
from openrepro.judge.evaluate import evaluate
from openrepro.judge.service import judge_logbooks


def test_map_cases_get_their_gold_verdicts(challenge: ChallengeContext, tmp_path: Path) -> None:
    labels = build_map_cases(challenge, tmp_path / "cases")
    judged = judge_logbooks(challenge, None)
    report = evaluate(challenge, labels)
    got = {c.case: c for c in report.cases}
    assert set(got) == {c.name for c in MAP_CASES}
    for case in MAP_CASES:
        assert got[case.name].predicted == case.gold, (case.name, got[case.name].rationale)
    rules = {row.participant: row.rule for row in judged.verdicts}
    assert rules["csv-only"].startswith("K:") and rules["map-rows"].startswith("K:")
    assert report.macro_f1 == 1.0
    print("\nmap cases:", {c.case: (c.gold, c.predicted) for c in report.cases})
