"""Evaluating checks: each relation verified, falsified and too noisy to decide, from seeds."""

from __future__ import annotations

import math

import pytest

from openrepro.claims.checks import (
    Check,
    Comparator,
    Constant,
    Direction,
    GrowthLaw,
    Quantity,
    Relation,
    Tolerance,
    Trend,
    draft_check,
)
from openrepro.evidence.relations import (
    Bound,
    evaluate,
)


def _q(*names: str) -> list[Quantity]:
    return [Quantity(name=n) for n in names]


def _bound(op: Comparator, value: float, text: str) -> Check:
    return Check(
        relation=Relation.bound,
        quantities=_q("acc"),
        subject="acc",
        comparator=op,
        constant=Constant(value=value, text=text),
        tolerance=Tolerance(rel=0),
    )


def _two(relation: Relation, **fields: object) -> Check:
    return Check(
        relation=relation,
        quantities=_q("ours", "base"),
        subject="ours",
        baselines=["base"],
        **fields,
    )  # type: ignore[arg-type]


def _seeds(ours: list[float], base: list[float]) -> list[Bound]:
    return [
        Bound(quantity="ours", seeds=ours, pointers=["claims/p/C1/ours@step 100"]),
        Bound(quantity="base", seeds=base),
    ]


def test_at_least_90_with_three_seeds_above_is_verified_not_a_false_falsification() -> None:
    draft = draft_check("Our method reaches at least 90% accuracy on CIFAR-10.")
    assert draft.check is not None and draft.check.relation is Relation.bound
    result = evaluate(draft.check, [Bound(quantity=draft.check.subject, seeds=[95.1, 95.3, 94.9])])
    assert result.verdict == "verified" and result.rule == "S1"
    assert result.numbers["low"] is not None and float(result.numbers["low"]) > 90
    assert "t interval" in result.test
    assert result.check == draft.check  # the record carries the check and the values
    assert result.bound[0].seeds == [95.1, 95.3, 94.9]


@pytest.mark.parametrize(
    ("op", "seeds", "verdict", "rule"),
    [
        (Comparator.ge, [95.1, 95.3, 94.9], "verified", "S1"),
        (Comparator.ge, [85.1, 85.3, 84.9], "falsified", "S2"),
        (Comparator.ge, [80.0, 99.0, 91.0], "inconclusive", "S3"),
        (Comparator.lt, [85.1, 85.3, 84.9], "verified", "S1"),
        (Comparator.lt, [95.1, 95.3, 94.9], "falsified", "S2"),
        (Comparator.ge, [95.0], "verified", "P1"),
        (Comparator.ge, [89.0], "falsified", "P2"),
    ],
)
def test_bounds_decide_from_the_interval(
    op: Comparator, seeds: list[float], verdict: str, rule: str
) -> None:
    result = evaluate(_bound(op, 90, "90%"), [Bound(quantity="acc", seeds=seeds)])
    assert (result.verdict, result.rule) == (verdict, rule)
    assert ("single_seed" in result.flags) is (len(seeds) == 1)
    assert ("too_noisy" in result.flags) is (verdict == "inconclusive")


@pytest.mark.parametrize(
    ("seeds", "verdict"),
    [
        ([88.0, 88.2, 87.9], "verified"),
        ([70.0, 70.4, 69.8], "falsified"),
        ([60.0, 88.0, 110.0], "inconclusive"),
    ],
)
def test_equality_within_tolerance(seeds: list[float], verdict: str) -> None:
    check = Check(
        relation=Relation.equal,
        quantities=_q("acc"),
        subject="acc",
        constant=Constant(value=88.1, text="88.1%"),
    )
    assert evaluate(check, [Bound(quantity="acc", seeds=seeds)]).verdict == verdict


def test_a_percentage_against_fractions_decides_nothing() -> None:
    check = Check(
        relation=Relation.equal,
        quantities=_q("acc"),
        subject="acc",
        constant=Constant(value=88.1, text="88.1%"),
    )
    result = evaluate(check, [Bound(quantity="acc", seeds=[0.881, 0.879])])
    assert (result.verdict, result.rule, result.flags) == ("inconclusive", "E3", ["unit_mismatch"])


@pytest.mark.parametrize(
    ("ours", "base", "verdict"),
    [
        ([84.0, 84.2, 83.9], [79.0, 79.1, 78.8], "verified"),  # +5 points
        ([80.0, 80.2, 79.9], [79.0, 79.1, 78.8], "falsified"),  # +1 point
        ([84.0, 70.0, 98.0], [79.0, 79.1, 78.8], "inconclusive"),
    ],
)
def test_difference_uses_both_quantities_seeds(
    ours: list[float], base: list[float], verdict: str
) -> None:
    check = _two(
        Relation.difference,
        comparator=Comparator.eq,
        constant=Constant(value=5, text="5"),
        tolerance=Tolerance(rel=0.25),
    )
    result = evaluate(check, _seeds(ours, base))
    assert result.verdict == verdict
    assert result.numbers["n"] == 6 and "Welch" in result.test
    assert result.bound[0].pointers == ["claims/p/C1/ours@step 100"]


@pytest.mark.parametrize(
    ("ours", "verdict"),
    [
        ([8.1, 8.3, 8.2], "verified"),
        ([4.0, 4.1, 3.9], "falsified"),
        ([2.0, 9.0, 30.0], "inconclusive"),
    ],
)
def test_ratio_at_least_8x(ours: list[float], verdict: str) -> None:
    check = _two(Relation.ratio, comparator=Comparator.ge, constant=Constant(value=8, text="8x"))
    result = evaluate(check, _seeds(ours, [1.0, 1.01, 0.99]))
    assert result.verdict == verdict
    assert "logs" in result.test


def test_ratio_of_non_positive_values_is_inconclusive() -> None:
    check = _two(Relation.ratio, comparator=Comparator.ge, constant=Constant(value=8, text="8x"))
    assert evaluate(check, _seeds([8.0, -1.0], [1.0, 1.0])).rule == "E4"


@pytest.mark.parametrize(
    ("ours", "base", "direction", "verdict"),
    [
        ([0.90, 0.91, 0.92], [0.80, 0.81, 0.79], Direction.higher, "verified"),
        ([0.70, 0.71, 0.72], [0.80, 0.81, 0.79], Direction.higher, "falsified"),
        ([0.70, 0.95, 0.80], [0.80, 0.81, 0.79], Direction.higher, "inconclusive"),
        ([0.05, 0.06, 0.05], [0.10, 0.11, 0.10], Direction.lower, "verified"),  # lower ECE
        ([0.20, 0.21, 0.20], [0.10, 0.11, 0.10], Direction.lower, "falsified"),
    ],
)
def test_ordering_in_the_metrics_direction(
    ours: list[float], base: list[float], direction: Direction, verdict: str
) -> None:
    check = _two(Relation.ordering, direction=direction)
    assert evaluate(check, _seeds(ours, base)).verdict == verdict


def test_best_among_several_baselines_is_one_part_per_baseline() -> None:
    check = Check(
        relation=Relation.ordering,
        quantities=_q("ours", "a", "b"),
        subject="ours",
        baselines=["a", "b"],
        comparator=Comparator.gt,
    )
    bound = [
        Bound(quantity="ours", seeds=[0.9, 0.91, 0.92]),
        Bound(quantity="a", seeds=[0.8] * 3),
        Bound(quantity="b", seeds=[0.95, 0.96, 0.94]),
    ]
    result = evaluate(check, bound)
    assert result.verdict == "falsified" and result.rule == "A1"
    assert [(p.at, p.verdict) for p in result.parts] == [("a", "verified"), ("b", "falsified")]


@pytest.mark.parametrize(
    ("ours", "verdict"),
    [
        ([10.0, 10.1, 9.9], "verified"),
        ([14.0, 14.1, 13.9], "falsified"),
        ([5.0, 10.0, 15.0], "inconclusive"),
    ],
)
def test_comparable_is_an_equivalence_test(ours: list[float], verdict: str) -> None:
    check = _two(Relation.comparable, tolerance=Tolerance(rel=0.1))
    assert evaluate(check, _seeds(ours, [10.0, 10.05, 9.95])).verdict == verdict


@pytest.mark.parametrize(
    ("after", "verdict"),
    [([22.8, 22.9, 22.7], "verified"), ([24.9, 25.0, 24.8], "falsified")],
)
def test_change_from_a_to_b_needs_the_end_value_and_the_direction(
    after: list[float], verdict: str
) -> None:
    draft = draft_check("Fine-tuning reduces perplexity from 24.3 to 22.8 on WikiText-103.")
    check = draft.check
    assert check is not None and check.relation is Relation.change
    bound = [
        Bound(quantity=check.subject, seeds=after),
        Bound(quantity=check.baselines[0], seeds=[24.3, 24.2, 24.4]),
    ]
    result = evaluate(check, bound)
    assert result.verdict == verdict
    assert {p.at for p in result.parts} == {"end value", "direction of change"}


def _sweep(f: object, xs: list[float], noise: float = 0.0) -> Bound:
    fn = f if callable(f) else None
    assert fn is not None
    points: list[tuple[float | str, float]] = []
    for i, x in enumerate(xs):
        for seed in range(3):
            points.append((x, float(fn(x)) + noise * math.sin(7 * i + 3 * seed)))
    return Bound(quantity="y", points=points)


@pytest.mark.parametrize(
    ("trend", "f", "verdict"),
    [
        (Trend.increasing, lambda x: 2 * x + 1, "verified"),
        (Trend.increasing, lambda x: -2 * x + 1, "falsified"),
        (Trend.decreasing, lambda x: -0.5 * x, "verified"),
        (Trend.increasing, lambda x: 0.0, "inconclusive"),
    ],
)
def test_trend_is_the_sign_of_the_fitted_slope(trend: Trend, f: object, verdict: str) -> None:
    check = Check(
        relation=Relation.trend, quantities=_q("y"), subject="y", trend=trend, sweep="model size"
    )
    result = evaluate(check, [_sweep(f, [1, 2, 3, 4, 5], noise=0.3)])
    assert result.verdict == verdict
    assert "spearman_rho" in result.numbers


def test_trend_with_two_points_is_too_few() -> None:
    check = Check(relation=Relation.trend, quantities=_q("y"), subject="y", trend=Trend.increasing)
    assert evaluate(check, [Bound(quantity="y", points=[(1, 1.0), (2, 2.0)])]).rule == "E5"


def _growth(law: GrowthLaw, rate: Constant | None = None) -> Check:
    return Check(
        relation=Relation.growth, quantities=_q("y"), subject="y", law=law, constant=rate, sweep="k"
    )


KS = [2, 4, 8, 16, 32, 64, 128, 256]


def test_growth_law_logarithmic_against_linear() -> None:
    log_data = _sweep(lambda k: 0.38 * math.log(k) + 1.0, KS, noise=0.02)
    verified = evaluate(_growth(GrowthLaw.logarithmic), [log_data])
    assert verified.verdict == "verified" and verified.rule == "G1"
    assert abs(float(verified.numbers["rate"] or 0) - 0.38) < 0.02  # the fitted rate, reported
    assert (
        float(verified.numbers["rate_low"] or 0) < 0.38 < float(verified.numbers["rate_high"] or 1)
    )
    assert evaluate(_growth(GrowthLaw.linear), [log_data]).verdict == "falsified"
    # "H_k + O(1)": a stated rate of 1 is refuted by a measured 0.38 ln k
    stated = evaluate(_growth(GrowthLaw.logarithmic, Constant(value=1, text="1")), [log_data])
    assert stated.verdict == "falsified"
    linear_data = _sweep(lambda n: 3.0 * n + 2.0, KS, noise=0.5)
    assert evaluate(_growth(GrowthLaw.linear), [linear_data]).verdict == "verified"
    assert evaluate(_growth(GrowthLaw.logarithmic), [linear_data]).verdict == "falsified"


def test_a_law_that_falls_does_not_grow() -> None:
    """ "Latency grows linearly" is refuted by a line that falls: the fitted rate must have the
    claimed sign (rising unless the check says ``decreasing``), whatever law fits best."""
    falling = _sweep(lambda n: 900.0 - 3.0 * n, KS, noise=0.5)
    grows = evaluate(_growth(GrowthLaw.linear), [falling])
    assert (grows.verdict, grows.rule) == ("falsified", "G2") and "sign" in grows.detail
    falls = _growth(GrowthLaw.linear).model_copy(update={"trend": Trend.decreasing})
    assert evaluate(falls, [falling]).verdict == "verified"
    decay = _sweep(lambda n: 5.0 * n**-0.5, KS, noise=0.001)
    assert evaluate(_growth(GrowthLaw.power), [decay]).verdict == "falsified"
    power_falls = _growth(GrowthLaw.power).model_copy(update={"trend": Trend.decreasing})
    assert evaluate(power_falls, [decay]).verdict == "verified"


def test_power_law_exponent_and_sublinear_growth() -> None:
    data = _sweep(lambda n: 2.0 * n**0.5, KS, noise=0.01)
    assert evaluate(_growth(GrowthLaw.sublinear), [data]).verdict == "verified"
    check = _growth(GrowthLaw.power, Constant(value=2, text="2"))
    assert evaluate(check, [data]).verdict == "falsified"
    assert evaluate(_growth(GrowthLaw.sublinear), [_sweep(lambda n: n**2, KS)]).verdict == (
        "falsified"
    )


def _universal(unbounded: bool) -> Check:
    inner = _bound(Comparator.lt, 0.75, "0.75")
    return Check(relation=Relation.for_all, inner=inner, sweep="k", unbounded=unbounded)


def test_universal_statement_on_a_finite_sweep() -> None:
    holds = Bound(quantity="acc", points=[(k, 0.5 + 0.001 * s) for k in (1, 2, 4) for s in (0, 1)])
    toy = evaluate(_universal(True), [holds])
    assert (toy.verdict, toy.rule) == ("toy", "U2") and "finite_horizon" in toy.flags
    assert [p.at for p in toy.parts] == ["1", "2", "4"]
    assert evaluate(_universal(False), [holds]).verdict == "verified"  # a finite domain
    counter = Bound(quantity="acc", points=[*holds.points, (8, 0.9), (8, 0.91)])
    falsified = evaluate(_universal(True), [counter])
    assert (falsified.verdict, falsified.rule) == ("falsified", "U1")
    assert "= 8" in falsified.detail


def test_an_enumerated_domain_must_be_measured_everywhere() -> None:
    inner = _bound(Comparator.lt, 0.75, "0.75")
    domain = [Constant(value=v, text=str(v)) for v in (8, 16, 32)]
    check = Check(relation=Relation.for_all, inner=inner, sweep="batch size", domain=domain)
    assert check.describe().startswith("for every batch size in {8, 16, 32}: ")
    at = [(8, 0.5), (8, 0.51), (16, 0.5), (16, 0.52)]
    partial = evaluate(check, [Bound(quantity="acc", points=at)])
    assert (partial.verdict, partial.rule) == ("inconclusive", "U5")
    assert "incomplete" in partial.flags and "batch size = 32" in partial.detail
    full = evaluate(check, [Bound(quantity="acc", points=[*at, (32, 0.6), (32, 0.61)])])
    assert (full.verdict, full.rule) == ("verified", "U3")
    # a point outside the claim's domain is no counterexample to it
    outside = [*at, (32, 0.6), (32, 0.61), (64, 0.9), (64, 0.91)]
    assert evaluate(check, [Bound(quantity="acc", points=outside)]).rule == "U3"
    assert sorted(c.value for c in check.constants()) == [0.75, 8, 16, 32]  # all grounded
    with pytest.raises(ValueError, match="open-ended"):
        Check(relation=Relation.for_all, inner=inner, sweep="k", domain=domain, unbounded=True)
    assert "domain" not in _universal(False).model_dump(mode="json")  # stored form unchanged


def test_existence_needs_one_instance() -> None:
    inner = _bound(Comparator.gt, 100, "100")
    check = Check(relation=Relation.exists, inner=inner, sweep="step size")
    found = Bound(
        quantity="acc", points=[(0.1, 5.0), (0.1, 6.0), (1.0, 150.0), (1.0, 151.0), (1.0, 152.0)]
    )
    assert evaluate(check, [found]).rule == "X1"
    none = Bound(quantity="acc", points=[(0.1, 5.0), (0.1, 6.0)])
    result = evaluate(check, [none])
    assert (result.verdict, result.flags) == ("inconclusive", ["no_instance"])


def test_conjunction() -> None:
    check = Check(
        relation=Relation.all_of,
        parts=[_bound(Comparator.ge, 90, "90"), Check(relation=Relation.human, note="images")],
    )
    result = evaluate(check, [Bound(quantity="acc", seeds=[95.0, 95.1])])
    assert (result.verdict, result.rule) == ("inconclusive", "A4")
    assert [p.rule for p in result.parts] == ["S1", "E2"]
    both = Check(
        relation=Relation.all_of,
        parts=[_bound(Comparator.ge, 90, "90"), _bound(Comparator.le, 99, "99")],
    )
    assert evaluate(both, [Bound(quantity="acc", seeds=[95.0, 95.1])]).verdict == "verified"
    assert evaluate(both, [Bound(quantity="acc", seeds=[99.5, 99.6, 99.55])]).verdict == "falsified"


def test_unbound_quantities_and_reduced_scale() -> None:
    result = evaluate(_bound(Comparator.ge, 90, "90"), [])
    assert (result.verdict, result.rule, result.flags) == ("inconclusive", "E1", ["unbound"])
    toy = evaluate(
        _bound(Comparator.ge, 90, "90"),
        [Bound(quantity="acc", seeds=[95.0, 95.2])],
        reduced_scale=True,
    )
    assert (toy.verdict, toy.rule) == ("toy", "C1") and "reduced_scale" in toy.flags


def test_the_result_is_a_record_a_reader_can_redo() -> None:
    check = _two(Relation.ordering, direction=Direction.higher)
    result = evaluate(check, _seeds([0.9, 0.91, 0.92], [0.8, 0.81, 0.79]))
    again = type(result).model_validate_json(result.model_dump_json())
    assert again == result
    assert evaluate(again.check or check, again.bound) == result  # same inputs, same verdict


def test_welch_interval_agrees_with_scipys_welch_test() -> None:
    from scipy import stats

    from openrepro.evidence.relations import welch_interval

    a, b = [84.0, 84.2, 83.9, 85.1], [79.0, 79.4, 78.8]
    mine = welch_interval(a, b)
    ci = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert math.isclose(mine.low, ci.low, rel_tol=1e-9)
    assert math.isclose(mine.high, ci.high, rel_tol=1e-9)


def test_values_no_statistic_can_use_are_left_out() -> None:
    """A seed logged as 1e300 overflows the variance: it once collapsed the interval to the
    mean (2.5e299 >= 90, verified); like NaN and infinity it is now left out."""
    check = _bound(Comparator.ge, 90, "90")
    low = [85.2, 85.0, 84.9]
    for wild in (1e300, -1e200, math.inf, math.nan):
        result = evaluate(check, [Bound(quantity="acc", seeds=[*low, wild])])
        assert (result.verdict, result.rule) == ("falsified", "S2"), wild
        assert result.numbers["n"] == 3
    # large but usable values enter the statistics and make the interval wide, not a point
    wide = evaluate(check, [Bound(quantity="acc", seeds=[*low, 1e150])])
    assert (wide.verdict, wide.rule) == ("inconclusive", "S3")
    assert evaluate(check, [Bound(quantity="acc", seeds=[1e300, math.nan])]).rule == "E1"
