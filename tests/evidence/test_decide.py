"""The judge's comparison and decision table, row by row (no model involved)."""

from __future__ import annotations

import pytest

from openrepro.claims.values import ReportedValue
from openrepro.evidence.decide import (
    Comparison,
    compare,
    decide,
    is_quantified_over_all,
    parse_scale_number,
    prediction_interval,
    scale_ratio,
)
from openrepro.evidence.records import Measurement, Pointer, ScaleFigures

ACC = ReportedValue(metric="accuracy", value=88.1, text="88.1%", unit="%")


def m(value: float, seed: str = "s0", *, ok: bool = True, within: bool = True) -> Measurement:
    pointer = Pointer(kind="metric", run=seed, key="claims/p/C1/accuracy", step=0)
    return Measurement(value=value, seed=seed, run=seed, pointer=pointer, run_ok=ok,
                       within_run=within)  # fmt: skip


def test_single_seed_within_and_outside_tolerance() -> None:
    assert compare([m(87.0)], ACC).match is True  # within 5 % of 88.1
    assert compare([m(80.0)], ACC).match is False
    assert compare([m(87.0)], ACC, rel_tol=0.001).match is False  # a claim's own tolerance


def test_last_step_per_seed_and_prediction_interval_with_three_seeds() -> None:
    seeds = [m(70.0, "s0"), m(88.0, "s0"), m(88.4, "s1"), m(87.9, "s2")]
    result = compare(seeds, ACC)
    assert result.measured == [88.0, 88.4, 87.9] and result.seeds == 3
    assert result.match is True and result.low is not None and result.high is not None
    assert result.low < 88.1 < result.high
    tight = [m(90.0, "a"), m(90.1, "b"), m(90.05, "c")]
    assert compare(tight, ACC).match is True  # outside the narrow interval, but 2.2 % off < 5 %
    assert compare(tight, ACC, rel_tol=0.01).match is False  # a claim with a 1 % tolerance


def test_prediction_interval_matches_the_t_formula() -> None:
    low, high = prediction_interval([1.0, 2.0, 3.0])
    # mean 2, sd 1, t(0.975, 2) = 4.303, sqrt(1 + 1/3)
    assert low == pytest.approx(2 - 4.303 * (4 / 3) ** 0.5)
    assert high == pytest.approx(2 + 4.303 * (4 / 3) ** 0.5)


def test_direction_of_effect_for_reported_changes() -> None:
    lower_is_better = ReportedValue(metric="perplexity", value=22.8, text="22.8", baseline=24.3)
    assert compare([m(22.9)], lower_is_better).match is True
    wrong_way = ReportedValue(metric="perplexity", value=22.8, text="22.8", baseline=22.0)
    assert compare([m(21.9)], wrong_way, rel_tol=0.1).match is False


def test_unit_mismatch_is_neither_match_nor_mismatch() -> None:
    result = compare([m(0.881)], ACC)
    assert result.unit_mismatch and result.match is None
    fraction = ReportedValue(metric="accuracy", value=0.881, text="0.881")
    assert compare([m(88.1)], fraction).unit_mismatch


def test_only_successful_runs_count() -> None:
    failed = compare([m(88.1, ok=False)], ACC)
    assert failed.measured == [] and failed.run_failed
    outside = compare([m(88.1, within=False)], ACC)
    assert outside.measured == [] and outside.outside_run


@pytest.mark.parametrize(
    ("comparison", "kwargs", "verdict", "rule", "flag"),
    [
        (Comparison(run_failed=True), {}, "inconclusive", "R1", "run_failed"),
        (Comparison(outside_run=True), {}, "inconclusive", "R2", "metric_outside_run"),
        (Comparison(), {}, "inconclusive", "R3", None),
        (Comparison(measured=[0.9], unit_mismatch=True), {}, "inconclusive", "R4", "unit_mismatch"),
        (Comparison(measured=[88.0], match=True), {"ratio": 12.0}, "toy", "R5", "reduced_scale"),
        (Comparison(measured=[88.0], match=False), {"ratio": 12.0}, "toy", "R5", "reduced_scale"),
        (Comparison(measured=[80.0], match=False), {"ratio": 2.0}, "falsified", "R6", None),
        (Comparison(measured=[80.0], match=False), {"quantified_over_all": True}, "falsified",
         "R6", None),
        (Comparison(measured=[88.0], match=True), {"quantified_over_all": True}, "toy", "R7",
         "finite_horizon"),
        (Comparison(measured=[88.0], match=True), {}, "verified", "R8", None),
    ],
)  # fmt: skip
def test_decision_table_rows(
    comparison: Comparison, kwargs: dict[str, object], verdict: str, rule: str, flag: str | None
) -> None:
    decision = decide(comparison, **kwargs)  # type: ignore[arg-type]
    assert (decision.verdict, decision.rule) == (verdict, rule)
    if flag:
        assert flag in decision.flags


def test_testimony_and_injection_flags_never_change_the_verdict() -> None:
    clean = decide(Comparison(measured=[80.0], match=False))
    flagged = decide(
        Comparison(measured=[80.0], match=False),
        extra_flags=["testimony_disagrees", "injection_suspected"],
    )
    assert clean.verdict == flagged.verdict == "falsified"
    assert flagged.flags == ["testimony_disagrees", "injection_suspected"]


def test_scale_parsing_and_ratio() -> None:
    assert parse_scale_number("350M") == 3.5e8
    assert parse_scale_number("1.3B") == 1.3e9
    assert parse_scale_number("2,000 steps") == 2000
    assert parse_scale_number("none") is None
    assert parse_scale_number("10\u2076 draws") == 1e6  # a power of ten, not 10
    assert parse_scale_number("2 x 10^5 samples") == 2e5
    assert parse_scale_number("100 samples") == 100
    paper = ScaleFigures(parameters=1.3e9, steps=20000)
    assert scale_ratio(paper, ScaleFigures(parameters=125e6)) == pytest.approx(10.4)
    assert scale_ratio(paper, ScaleFigures(parameters=1.3e9, steps=20000)) == 1.0
    assert scale_ratio(paper, ScaleFigures(data=1e6)) is None


def test_quantified_claims() -> None:
    assert is_quantified_over_all("The bound holds for all horizons T.", "result")
    assert is_quantified_over_all("Anything.", "theory")
    assert not is_quantified_over_all("Reaches 88.1 accuracy on GLUE.", "result")


def test_a_wild_seed_cannot_stretch_the_interval_into_a_match() -> None:
    wild = compare([m(70.1, "a"), m(70.3, "b"), m(69.9, "c"), m(1e300, "d")], ACC)
    assert wild.match is False  # every seed disagrees with 88.1
    mixed = compare([m(88.0, "a"), m(88.2, "b"), m(40.0, "c")], ACC)
    assert mixed.match is None and "too noisy" in mixed.detail
    agreeing = compare([m(85.0, "a"), m(91.0, "b"), m(86.0, "c"), m(90.5, "d")], ACC)
    assert agreeing.match is True  # noisy, yet every seed is within 5 % of 88.1


def test_extreme_numbers_never_crash_and_never_decide_wrongly() -> None:
    inf_ignored = compare([m(float("inf"), "a"), m(88.0, "b")], ACC)
    assert inf_ignored.match is True and inf_ignored.seeds == 1
    huge = ReportedValue(metric="loss", value=1e308, text="1e308")
    overflowing = compare([m(1e308, "a"), m(1.7e308, "b"), m(1.7e308, "c")], huge)
    assert overflowing.match is None and "too large" in overflowing.detail  # no crash, no verdict
    exact = ReportedValue(metric="loss", value=0.1 + 0.2, text="0.3")
    assert compare([m(0.3, s) for s in "abc"], exact, rel_tol=0.0).match is True
    tiny = ReportedValue(metric="rate", value=1e-242, text="1e-242", baseline=0.0)
    assert compare([m(1e-242)], tiny).match is True
