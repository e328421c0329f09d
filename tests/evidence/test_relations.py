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
    Order,
    Quantity,
    Rate,
    Relation,
    Tolerance,
    Trend,
    draft_check,
    grounding_problems,
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


# -- the check language of theory and scaling claims ---------------------------------------

T = [10, 20, 40, 80, 160, 320, 640]


def _series(quantity: str, f: object, xs: list[float], noise: float = 0.02) -> Bound:
    """Three seeds per point, with a multiplicative wiggle of ``noise``."""
    assert callable(f)
    return Bound(
        quantity=quantity,
        points=[
            (x, float(f(x)) * (1 + noise * math.sin(7 * i + 3 * seed)))
            for i, x in enumerate(xs)
            for seed in range(3)
        ],
    )


def _rate(order: Order, exponent: float, logs: float | None = None) -> Check:
    return Check(
        relation=Relation.rate,
        quantities=_q("gap"),
        subject="gap",
        sweep="T",
        rate=Rate(
            order=order,
            symbol="T",
            exponent=Constant(value=exponent, text="exponent"),
            log_exponent=Constant(value=logs, text="log T") if logs is not None else None,
        ),
    )


@pytest.mark.parametrize(
    ("order", "f", "verdict", "rule"),
    [
        (Order.O, lambda t: 3 / t, "verified", "O1"),
        # a faster decay holds: T^-2 must not falsify a true O(1/T)
        (Order.O, lambda t: 5 / t**2, "verified", "O1"),
        (Order.O, lambda t: 2 / t**0.5, "falsified", "O2"),  # confidently slower
        (Order.Theta, lambda t: 3 / t, "verified", "O1"),
        (Order.Theta, lambda t: 5 / t**2, "falsified", "O2"),  # Θ needs both sides
        (Order.Theta, lambda t: 2 / t**0.5, "falsified", "O2"),
        (Order.Omega, lambda t: 2 / t**0.5, "verified", "O1"),  # the reverse of O
        (Order.Omega, lambda t: 5 / t**2, "falsified", "O2"),
    ],
)
def test_a_rate_is_decided_by_the_fitted_exponent_against_its_order(
    order: Order, f: object, verdict: str, rule: str
) -> None:
    result = evaluate(_rate(order, -1), [_series("gap", f, T)])
    assert (result.verdict, result.rule) == (verdict, rule)
    low, high = float(result.numbers["low"] or 0), float(result.numbers["high"] or 0)
    assert low <= float(result.numbers["exponent"] or 0) <= high
    assert "log-log" in result.test


def test_a_rate_too_noisy_or_unusable_is_undecided() -> None:
    noisy = evaluate(_rate(Order.O, -1), [_series("gap", lambda t: 3 / t**0.9, T[:4], 0.8)])
    assert (noisy.verdict, noisy.rule, noisy.flags) == ("inconclusive", "O3", ["too_noisy"])
    negative = Bound(quantity="gap", points=[(t, -1 / t) for t in T])
    assert evaluate(_rate(Order.O, -1), [negative]).rule == "E4"
    assert (
        evaluate(_rate(Order.O, -1), [Bound(quantity="gap", points=[(1, 1.0), (2, 0.5)])]).rule
        == "E5"
    )


def test_a_log_factor_is_divided_out_before_the_exponent_is_fitted() -> None:
    data = _series("gap", lambda t: math.log(t) / t, T)
    assert evaluate(_rate(Order.Theta, -1, logs=1), [data]).verdict == "verified"
    # without the log factor the same data decays slower than 1/T: Θ(1/T) does not hold
    assert evaluate(_rate(Order.Theta, -1), [data]).verdict != "verified"


def _exponential(**fields: object) -> Check:
    return Check(
        relation=Relation.growth,
        quantities=_q("y"),
        subject="y",
        law=GrowthLaw.exponential,
        sweep="horizon",
        **fields,
    )  # type: ignore[arg-type]


def test_an_exponential_law_fits_log_y_linear_in_x() -> None:
    six = Bound(quantity="y", points=[(h, 3.0 * 2.0**h) for h in range(1, 7)])  # 6 points
    grows = evaluate(_exponential(), [six])
    assert (grows.verdict, grows.rule) == ("verified", "G1")
    assert abs(float(grows.numbers["base"] or 0) - 2.0) < 1e-6
    base = evaluate(_exponential(constant=Constant(value=2, text="2")), [six])
    assert base.verdict == "verified"
    assert evaluate(_exponential(constant=Constant(value=3, text="3")), [six]).verdict == (
        "falsified"
    )
    square = Bound(quantity="y", points=[(h, float(h * h)) for h in range(1, 7)])
    polynomial = evaluate(_exponential(), [square])  # a power law is not exponential
    assert (polynomial.verdict, polynomial.rule) == ("falsified", "G2")
    assert "best fit: power" in polynomial.detail
    decay = Bound(quantity="y", points=[(h, 0.5**h) for h in range(1, 7)])
    assert evaluate(_exponential(), [decay]).verdict == "falsified"  # falls, does not grow
    assert evaluate(_exponential(trend=Trend.decreasing), [decay]).verdict == "verified"


KS_DOUBLING = [2**i for i in range(10)]  # k = 1, 2, 4, ..., 512


def _monotone(trend: Trend) -> Check:
    return Check(relation=Relation.trend, quantities=_q("y"), subject="y", trend=trend, sweep="k")


def test_a_monotone_fall_that_flattens_is_decided_by_the_rank_test() -> None:
    error = [1.0, 0.5, 0.26, 0.13, 0.07, 0.04, 0.031, 0.030, 0.0302, 0.0299]  # a flat tail
    series = Bound(quantity="y", points=list(zip(KS_DOUBLING, error, strict=True)))
    result = evaluate(_monotone(Trend.decreasing), [series])
    assert (result.verdict, result.rule) == ("verified", "M1")
    assert float(result.numbers["p_slope"] or 0) > 0.05  # the line alone cannot decide it
    assert float(result.numbers["kendall_tau"] or 0) < -0.8
    assert "Kendall" in result.test
    wrong_way = evaluate(_monotone(Trend.increasing), [series])
    assert (wrong_way.verdict, wrong_way.rule) == ("falsified", "M2")


@pytest.mark.parametrize(
    "values",
    [
        [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.5, 0.2],  # falls, but rises once by 0.2
        [1.0, 0.5, 0.26, 0.13, 0.07, 0.04, 0.08, 0.16, 0.3, 0.6],  # falls then rises
        [0.3, 0.5, 0.2, 0.6, 0.1, 0.4, 0.35, 0.15, 0.55, 0.25],  # no order
    ],
)
def test_a_series_that_is_not_monotone_is_never_verified(values: list[float]) -> None:
    series = Bound(quantity="y", points=list(zip(KS_DOUBLING, values, strict=True)))
    for trend in Trend:
        assert evaluate(_monotone(trend), [series]).verdict != "verified"


def _identity(**fields: object) -> Check:
    return Check(relation=Relation.identity, quantities=_q("err"), subject="err", **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("seeds", "verdict", "rule"),
    [
        ([1e-15, -3e-16, 2e-15], "verified", "I1"),  # the same distribution, to rounding
        ([1.1e-3, 1.2e-3, 0.9e-3], "falsified", "I2"),
        ([2e-3], "falsified", "I2"),  # one value: it decides, and says so
        ([1e-15, 0.3, 2e-16], "inconclusive", "I3"),
    ],
)
def test_an_identity_holds_when_every_residual_is_within_the_tolerance(
    seeds: list[float], verdict: str, rule: str
) -> None:
    result = evaluate(_identity(), [Bound(quantity="err", seeds=seeds)])
    assert (result.verdict, result.rule) == (verdict, rule)
    assert result.numbers["tolerance"] == 1e-9
    assert ("single_seed" in result.flags) is (len(seeds) == 1)


def test_an_identity_uses_the_stated_tolerance_and_each_sweep_point() -> None:
    stated = _identity(constant=Constant(value=1e-2, text="1e-2"))
    assert evaluate(stated, [Bound(quantity="err", seeds=[1e-3, 2e-3])]).verdict == "verified"
    over_n = Bound(quantity="err", points=[(n, 1e-15) for n in (10, 100)] + [(1000, 0.5)] * 2)
    result = evaluate(_identity(), [over_n])
    assert (result.verdict, result.rule) == ("falsified", "I2") and "= 1000" in result.detail


def _tasks(**fields: object) -> Check:
    inner = _bound(Comparator.ge, 90, "90%").model_copy(
        update={"quantities": [Quantity(name="acc", sweep="task")]}
    )
    return Check(relation=Relation.for_all, sweep="task", inner=inner, **fields)  # type: ignore[arg-type]


def _per_task(scores: dict[str, float]) -> Bound:
    return Bound(quantity="acc", points=[(t, v + d) for t, v in scores.items() for d in (0, 0.2)])


TEN = [f"task{i}" for i in range(10)]


@pytest.mark.parametrize(
    ("failing", "verdict", "rule"),
    [(0, "verified", "U6"), (1, "verified", "U6"), (2, "falsified", "U7")],
)
def test_in_9_of_10_tasks_counts_the_settings_that_hold(
    failing: int, verdict: str, rule: str
) -> None:
    check = _tasks(count=Constant(value=10, text="10"), at_least=Constant(value=9, text="9"))
    scores = {t: (50.0 if i < failing else 95.0) for i, t in enumerate(TEN)}
    result = evaluate(check, [_per_task(scores)])
    assert (result.verdict, result.rule) == (verdict, rule)


def test_across_four_datasets_needs_all_four_and_named_ones_need_each_name() -> None:
    four = _tasks(count=Constant(value=4, text="four"))
    three = _per_task({"a": 95.0, "b": 96.0, "c": 97.0})
    assert evaluate(four, [three]).rule == "U5"  # only 3 of the claim's 4 measured
    assert evaluate(four, [_per_task({"a": 95.0, "b": 96.0, "c": 97.0, "d": 93.0})]).rule == "U6"
    one_fails = _per_task({"a": 95.0, "b": 96.0, "c": 97.0, "d": 50.0})
    assert evaluate(four, [one_fails]).verdict == "falsified"
    named = _tasks(labels=["CIFAR-10", "SVHN"])
    measured = _per_task({"cifar10": 95.0, "SVHN": 96.0, "MNIST": 10.0})  # MNIST: not claimed
    assert (evaluate(named, [measured]).verdict, evaluate(named, [measured]).rule) == (
        "verified",
        "U3",
    )
    missing = evaluate(named, [_per_task({"CIFAR-10": 95.0})])
    assert (missing.verdict, missing.rule) == ("inconclusive", "U5") and "SVHN" in missing.detail


def test_x_a_vs_y_b_is_the_conjunction_of_both_values_and_their_order() -> None:
    """ "error: OurNet 6.0 % vs the strongest baseline 10.5 %": both numbers and the order."""
    ours, base = Quantity(name="ournet_error", unit="%"), Quantity(name="baseline_error", unit="%")
    check = Check(
        relation=Relation.all_of,
        parts=[
            Check(relation=Relation.equal, quantities=[ours], subject=ours.name,
                  constant=Constant(value=6.0, text="6.0 %")),
            Check(relation=Relation.equal, quantities=[base], subject=base.name,
                  constant=Constant(value=10.5, text="10.5 %")),
            Check(relation=Relation.ordering, quantities=[ours, base], subject=ours.name,
                  baselines=[base.name], direction=Direction.lower),
        ],
    )  # fmt: skip
    quote = "error: OurNet 6.0 % vs the strongest baseline 10.5 %"
    assert grounding_problems(check, quote) == []
    holds = [
        Bound(quantity="ournet_error", seeds=[6.0, 6.1, 5.9]),
        Bound(quantity="baseline_error", seeds=[10.4, 10.6, 10.5]),
    ]
    assert evaluate(check, holds).verdict == "verified"
    swapped = [holds[0].model_copy(update={"quantity": "baseline_error"}),
               holds[1].model_copy(update={"quantity": "ournet_error"})]  # fmt: skip
    assert evaluate(check, swapped).verdict == "falsified"


def test_upper_bound_growth_at_most_of_order_sqrt_t() -> None:
    """ "Regret grows at most as O(√T)": a slower growth holds, a faster one refutes it."""
    check = _rate(Order.O, 0.5)
    assert evaluate(check, [_series("gap", lambda t: 4 * t**0.3, T)]).verdict == "verified"
    assert evaluate(check, [_series("gap", lambda t: 0.1 * t**0.9, T)]).verdict == "falsified"


def test_a_flat_tail_with_several_seeds_is_still_monotone() -> None:
    """Seeds that differ by a hair in the flat tail are not steps against the trend: a step
    must go against it by more than the tolerance."""
    error = [1.0, 0.5, 0.26, 0.13, 0.07, 0.04, 0.031, 0.030, 0.0302, 0.0299]
    points: list[tuple[float | str, float]] = [
        (k, e * (1 + 0.001 * math.sin(5 * i + seed)))
        for i, (k, e) in enumerate(zip(KS_DOUBLING, error, strict=True))
        for seed in range(3)
    ]
    result = evaluate(_monotone(Trend.decreasing), [Bound(quantity="y", points=points)])
    assert result.verdict == "verified" and "non_monotone" not in result.flags


def _small_rate(order: Order, exponent: float, logs: float | None = None) -> Check:
    check = _rate(order, exponent, logs)
    return check.model_copy(
        update={"sweep": "r", "rate": check.rate.model_copy(update={"symbol": "r"})}  # type: ignore[union-attr]
    )


R = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]


@pytest.mark.parametrize(
    ("order", "f", "verdict"),
    [
        # Omega(r^2) over r in (0, 1): a lower bound as r goes to 0
        (Order.Omega, lambda r: 4 * r**2, "verified"),
        (Order.Omega, lambda r: 2 * r, "verified"),  # r >= r^2 on (0, 1): larger holds too
        (Order.Omega, lambda r: 3 * r**3, "falsified"),  # confidently smaller as r -> 0
        (Order.O, lambda r: 4 * r**2, "verified"),
        (Order.O, lambda r: 3 * r**3, "verified"),  # smaller holds for an upper bound
        (Order.O, lambda r: 2 * r, "falsified"),
        (Order.Theta, lambda r: 2 * r, "falsified"),
    ],
)
def test_a_rate_over_a_variable_below_1_is_decided_towards_0(
    order: Order, f: object, verdict: str
) -> None:
    result = evaluate(_small_rate(order, 2), [_series("gap", f, R)])
    assert result.verdict == verdict, result.detail
    assert result.numbers["limit"] == "0" and "goes to 0" in result.detail


def test_a_rate_without_a_log_factor_never_takes_log_log_of_x() -> None:
    # x = 1 would make log(log x) fail: the fit must not compute it without a log factor
    xs = [1.0, 2.0, 4.0, 8.0, 16.0]
    result = evaluate(_rate(Order.O, -1), [_series("gap", lambda t: 3 / t, xs)])
    assert result.verdict == "verified"


def test_a_log_factor_towards_0_is_log_of_1_over_x() -> None:
    data = _series("gap", lambda r: r * math.log(1 / r), R)
    assert evaluate(_small_rate(Order.Theta, 1, logs=1), [data]).verdict == "verified"
    straddles = _series("gap", lambda t: math.log(t) / t, [0.5, 2.0, 4.0, 8.0])
    assert evaluate(_rate(Order.O, -1, logs=1), [straddles]).rule == "E4"
