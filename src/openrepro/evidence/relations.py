"""Evaluating a check on bound values: statistics over seeds, not point comparisons.

Pure code, no store and no LLM: :func:`evaluate` takes a
:class:`~openrepro.claims.checks.records.Check`
and, per quantity, the values the judge read at their pointers (:class:`Bound`: one value per
seed, or a sweep of ``(x, y)`` points with one ``y`` per seed at each ``x``), and returns an
:class:`Evaluation` that records the check, the bound values with their pointers, the test, its
numbers and flags, so that a reader can redo it. The statistics come from SciPy
(:mod:`scipy.stats`): Student's t intervals, Welch's t-test, least-squares regression.

Each relation reduces to an **estimate with an interval** (95 % by default) and a claimed region:

- ``equal``: the mean of the seeds (one-sample t interval) against ``constant`` +- tolerance;
- ``bound``: the same mean against ``constant`` (the tolerance widens the bound: "at least 90"
  holds from ``90 - margin``; explicit bounds are drafted with no tolerance);
- ``difference``: subject - baseline by Welch's t interval, using both quantities' seeds;
  ``relative`` differences and ``ratio`` use Welch's interval on the logarithms (ratio of
  geometric means; every value must be positive);
- ``ordering``: subject - baseline (Welch) against 0, for each baseline; ``comparable``: the
  same difference against +- tolerance of the baseline's mean (an equivalence test);
- ``change``: the after value equals the stated end value, and after - before has the stated
  sign (Welch);
- ``trend``: the slope of the least-squares line through the sweep (``scipy.stats.linregress``,
  t interval with n - 2 degrees of freedom) and, alongside, Kendall's tau-b of the values
  against the sweep (``scipy.stats.kendalltau``: the Mann-Kendall rank test over the sweep),
  which decides a monotone trend the line does not fit (a fall that flattens out); a step
  between neighbouring points against the claimed direction by more than the tolerance
  (confidently, by Welch, where both points have several seeds) makes the series not monotone
  and never verified; Spearman's rho is reported too;
- ``growth``: each law (constant, logarithmic, linear, quadratic) is fitted by least squares and
  compared by AICc; a ``power`` or ``sublinear`` law by the exponent of the log-log fit and its
  t interval; a stated rate must lie within tolerance. A law *grows* (``trend`` unset or
  ``increasing``) or falls (``decreasing``): the claimed law's fitted rate (its slope, or the
  exponent of a power law with no stated exponent) must have that sign by its t interval: a
  line that falls refutes "latency grows linearly" (the best fit is linear all the same).
  An ``exponential`` law fits ``log y`` linear in ``x`` and is compared by AICc, on ``log y``,
  with a power law and a constant; its rate ``ln b`` must have the claimed sign and a stated
  base ``b`` must lie within the tolerance;
- ``rate``: the exponent ``p`` of the log-log least-squares fit (a claimed ``log^q x`` factor
  divided out first) with its t interval, against the claimed order and exponent ``a`` +-
  the margin (:meth:`Check.exponent_margin`): ``O`` claims ``p <= a`` (a faster decay holds
  too: ``T^-2`` verifies ``O(1/T)``), ``Omega`` ``p >= a``, ``Theta`` both; falsified only
  when the interval lies wholly outside (a confidently slower decay for ``O``). A sweep
  wholly below 1 (``r``, ``epsilon``, ``delta``, ``eta`` in (0, 1)) is read towards 0, where
  the comparisons turn over: ``O(r^2)`` claims ``p >= 2``, ``Omega(r^2)`` ``p <= 2``, and a
  log factor is ``log^q(1/x)``; a log factor over a sweep on both sides of 1 is undecided;
- ``identity``: every residual's magnitude at most the tolerance (the stated constant, else
  the organizer's absolute tolerance, else 1e-9); falsified when, at some point, every
  residual exceeds it and so does their mean's t interval;
- ``for_all`` with ``count`` n and ``at_least`` k ("in 9 of 10 tasks"): at least k settings
  verified, or more than n - k falsified; with ``labels`` (named settings) or ``count`` alone,
  every one must be measured and hold.

A trend whose slope decides keeps rules S1-S3 (S1 only without a step against the trend).
The claimed relation is decided from the interval ``[low, high]``:

| rule | condition | verdict | flag |
| --- | --- | --- | --- |
| E1 | a quantity the check needs has no bound value | inconclusive | unbound |
| E2 | the relation is a human judgement | inconclusive | needs_human |
| E3 | a % constant, values in [0, 1]; its hundredth, a value > 1 | inconclusive | unit_mismatch |
| E4 | a ratio or log-scale fit over values not all positive | inconclusive | nonpositive |
| E5 | a trend or growth law with < 3 distinct x | inconclusive | too_few_points |
| S1 | several seeds: the interval lies inside the claimed region | verified | |
| S2 | several seeds: the interval lies inside the negation | falsified | |
| S3 | several seeds: the interval straddles the boundary | inconclusive | too_noisy |
| P1 | a single seed (either side) satisfies it, within tolerance | verified | single_seed |
| P2 | a single seed: the value violates it | falsified | single_seed |
| G1 | growth: claimed law best by >= 2 AICc, rate of the claimed sign (and value) | verified | |
| G2 | growth: another law better by >= 2 AICc, or the rate's sign or value off | falsified | |
| G3 | growth: otherwise | inconclusive | too_noisy |
| M1 | trend: the slope is undecided, Kendall's tau is significant the claimed way | verified | |
| M2 | trend: Kendall's tau is significant against the claimed direction | falsified | |
| M3 | trend: a step against it, or slope and ranks disagree | inconclusive | non_monotone |
| O1 | rate: the exponent's interval lies inside the claimed order | verified | |
| O2 | rate: the interval lies wholly outside it | falsified | |
| O3 | rate: otherwise | inconclusive | too_noisy |
| I1 | identity: every residual within the tolerance | verified | |
| I2 | identity: at some point every residual above it, their mean's interval too | falsified | |
| I3 | identity: otherwise | inconclusive | too_noisy |
| U1 | for_all: the inner check is falsified at some point (a counterexample) | falsified | |
| U2 | for_all: it holds at every point, and the claim is open-ended | toy | finite_horizon |
| U3 | for_all: it holds at every point of a finite, enumerated domain | verified | |
| U5 | for_all: holds where measured; a ``domain`` value unmeasured | inconclusive | incomplete |
| U4 | for_all: otherwise | inconclusive | |
| U6 | for_all with a count: at least ``at_least`` (else all ``count``) settings hold | verified | |
| U7 | for_all with a count: more than ``count - at_least`` settings fail | falsified | |
| X1 | exists: the inner check is verified at some point | verified | |
| X2 | exists: no point verifies it (a finite search cannot refute) | inconclusive | no_instance |
| A1 | all_of: some part is falsified | falsified | |
| A2 | all_of: every part is verified | verified | |
| A3 | all_of: every part is verified or toy | toy | |
| A4 | all_of: otherwise | inconclusive | |
| C1 | the run was at reduced scale (caller's finding): a decisive verdict | toy | reduced_scale |

Values that are not finite, or so large that their square overflows a float (beyond
:data:`MAX_MAGNITUDE`), are left out before any statistic, as the gathering of measurements
leaves out NaN and infinity: a seed logged as ``1e300`` neither collapses an interval to a point
nor decides a check. A standard error that is not finite makes the interval unbounded (S3).

For ``ordering`` against several baselines, each baseline is one part of an implicit ``all_of``.
For ``for_all``/``exists``, the inner check is evaluated at each ``x`` of its quantities' sweeps;
a quantity bound to plain seeds (no sweep) counts as the same at every ``x``.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from openrepro.claims.checks.records import (
    Check,
    Comparator,
    Constant,
    Direction,
    GrowthLaw,
    Order,
    Relation,
    Trend,
)
from openrepro.claims.values import find_numbers

__all__ = [
    "CONFIDENCE",
    "MAX_MAGNITUDE",
    "RULES",
    "Bound",
    "CheckVerdict",
    "Evaluation",
    "Interval",
    "evaluate",
]

CONFIDENCE = 0.95
AIC_MARGIN = 2.0  # Burnham & Anderson: a difference of 2 or more is support for the better model
MAX_MAGNITUDE = 1e150  # a larger value's square overflows a float: no variance can use it

CheckVerdict = Literal["verified", "falsified", "toy", "inconclusive"]
X = float | str

RULES: dict[str, str] = {
    "E1": "a quantity has no bound value",
    "E2": "human judgement",
    "E3": "percentage against fractions (or a percentage's hundredth against percents)",
    "E4": "values not all positive",
    "E5": "too few sweep points",
    "S1": "interval inside the claimed region",
    "S2": "interval inside the negation",
    "S3": "interval straddles the boundary",
    "P1": "single seed satisfies the relation within tolerance",
    "P2": "single seed violates the relation",
    "G1": "claimed growth law fits best",
    "G2": "another growth law fits better, or the rate is off",
    "G3": "growth law undecided",
    "U1": "counterexample in the sweep",
    "U2": "holds on a finite sweep of an open-ended claim",
    "U3": "holds at every point of a finite domain",
    "U4": "universal statement undecided",
    "U5": "a value of the enumerated domain was not measured",
    "U6": "holds at as many settings as the claim counts",
    "U7": "fails at more settings than the claim allows",
    "O1": "fitted exponent within the claimed order",
    "O2": "fitted exponent outside the claimed order",
    "O3": "fitted exponent undecided against the claimed order",
    "M1": "rank test: monotone in the claimed direction",
    "M2": "rank test: monotone against the claimed direction",
    "M3": "not monotone: a step against the claimed direction, or slope and ranks disagree",
    "I1": "every residual within the tolerance",
    "I2": "residual confidently above the tolerance",
    "I3": "residual undecided against the tolerance",
    "X1": "an instance verifies it",
    "X2": "no instance found",
    "A1": "a part is falsified",
    "A2": "every part is verified",
    "A3": "every part is verified or toy",
    "A4": "conjunction undecided",
    "C1": "reduced scale",
}


class Bound(BaseModel):
    """The values bound to one quantity, as read by code at their pointers."""

    quantity: str
    seeds: list[float] = Field(default_factory=list)  # one value per seed
    points: list[tuple[X, float]] = Field(default_factory=list)  # a sweep: (x, y) per seed
    pointers: list[str] = Field(default_factory=list)  # metric key + step, file row/col, ...

    def at(self, x: X) -> list[float]:
        return [y for px, y in self.points if px == x]

    @property
    def empty(self) -> bool:
        return not self.seeds and not self.points


class Interval(BaseModel):
    """An estimate with its interval; ``low == high == estimate`` for a single seed."""

    estimate: float
    low: float
    high: float
    n: int  # values behind it (both sides' seeds for a difference)
    df: float | None = None
    single: bool = False  # some side had a single seed: no interval, the tolerance decides
    test: str = ""


class Evaluation(BaseModel):
    """What :func:`evaluate` decided for one check (or one node of it), and why."""

    verdict: CheckVerdict
    rule: str
    rule_name: str
    relation: Relation
    description: str
    test: str = ""
    numbers: dict[str, float | int | str | None] = Field(default_factory=dict)
    flags: list[str] = Field(default_factory=list)
    bound: list[Bound] = Field(default_factory=list)
    parts: list[Evaluation] = Field(default_factory=list)
    at: str = ""  # the sweep point of a part of for_all / exists
    detail: str = ""
    check: Check | None = None  # the top-level result carries the whole check


# -- statistics -----------------------------------------------------------------------------


def _finite(x: Any) -> float:
    value = float(x)
    return value if math.isfinite(value) else 0.0


def _stderr(x: Any) -> float:
    """A standard error; one that is not finite (overflow, degenerate fit) is unbounded."""
    value = float(x)
    return value if math.isfinite(value) else math.inf


def _usable(value: float) -> bool:
    return math.isfinite(value) and abs(value) <= MAX_MAGNITUDE


def _usable_bound(b: Bound) -> Bound:
    """``b`` without the values no statistic can use (see the module docstring). A sweep's x is
    kept whatever it is: it only labels a point (a counterexample at x = 1e300 still refutes)."""
    seeds = [v for v in b.seeds if _usable(v)]
    points = [(x, y) for x, y in b.points if _usable(y)]
    if len(seeds) == len(b.seeds) and len(points) == len(b.points):
        return b
    return b.model_copy(update={"seeds": seeds, "points": points})


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """The mean of the seeds with its Student t interval (one-sample)."""
    from scipy import stats

    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return Interval(
            estimate=mean,
            low=mean,
            high=mean,
            n=n,
            single=True,
            test="single seed: the tolerance decides",
        )
    sem = 0.0 if max(values) == min(values) else _stderr(stats.sem(values))
    if sem == 0.0:
        return Interval(
            estimate=mean,
            low=mean,
            high=mean,
            n=n,
            df=n - 1,
            test="one-sample t interval (seeds identical)",
        )
    if math.isinf(sem):
        low, high = -math.inf, math.inf
    else:
        low, high = stats.t.interval(confidence, n - 1, loc=mean, scale=sem)
    return Interval(
        estimate=mean,
        low=float(low),
        high=float(high),
        n=n,
        df=n - 1,
        test=f"one-sample t interval ({confidence:.0%})",
    )


def welch_interval(
    a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE
) -> Interval:
    """mean(a) - mean(b) with Welch's t interval, from both sides' seeds."""
    from scipy import stats

    diff = math.fsum(a) / len(a) - math.fsum(b) / len(b)
    n = len(a) + len(b)
    if len(a) < 2 or len(b) < 2:
        return Interval(
            estimate=diff,
            low=diff,
            high=diff,
            n=n,
            single=True,
            test="single seed: the tolerance decides",
        )
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    if va + vb == 0.0:
        return Interval(
            estimate=diff,
            low=diff,
            high=diff,
            n=n,
            df=n - 2,
            test="Welch t interval (seeds identical)",
        )
    # Welch-Satterthwaite degrees of freedom; the variances are exact (statistics.variance) so
    # a side whose seeds agree contributes exactly 0, and the t quantile is SciPy's.
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = float(stats.t.ppf(0.5 + confidence / 2, df)) * math.sqrt(va + vb)
    return Interval(
        estimate=diff,
        low=diff - half,
        high=diff + half,
        n=n,
        df=df,
        test=f"Welch t interval ({confidence:.0%})",
    )


def ratio_interval(
    a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE
) -> Interval:
    """The ratio of geometric means a / b: Welch's interval on the logarithms, exponentiated."""
    logs = welch_interval([math.log(v) for v in a], [math.log(v) for v in b], confidence)
    return Interval(
        estimate=math.exp(logs.estimate),
        low=math.exp(logs.low),
        high=math.exp(logs.high),
        n=logs.n,
        df=logs.df,
        single=logs.single,
        test=logs.test.replace("Welch t interval", "Welch t interval on logs"),
    )


# -- deciding an interval against a claimed region -------------------------------------------


def _region(
    op: Comparator, c: float, margin: float, upper: float | None, upper_margin: float
) -> tuple[float, float, bool, bool]:
    """The claimed region as (low, high, low_open, high_open) on the real line."""
    inf = math.inf
    if op is Comparator.ge:
        return c - margin, inf, False, True
    if op is Comparator.gt:
        return c - margin, inf, True, True
    if op is Comparator.le:
        return -inf, c + margin, True, False
    if op is Comparator.lt:
        return -inf, c + margin, True, True
    if op is Comparator.between and upper is not None:
        return min(c, upper) - margin, max(c, upper) + upper_margin, False, False
    return c - margin, c + margin, False, False  # eq


def _decide(interval: Interval, region: tuple[float, float, bool, bool]) -> str:
    """``holds``, ``fails`` or ``undecided``: the interval inside the region, outside it, or
    across its boundary. A single seed's point is always inside or outside."""
    low, high, low_open, high_open = region
    lo, hi = interval.low, interval.high
    above_low = lo > low if low_open else lo >= low
    below_high = hi < high if high_open else hi <= high
    if above_low and below_high:
        return "holds"
    entirely_below = hi <= low if low_open else hi < low
    entirely_above = lo >= high if high_open else lo > high
    if entirely_below or entirely_above:
        return "fails"
    return "undecided"


def _scalar_result(
    check: Check,
    interval: Interval,
    region: tuple[float, float, bool, bool],
    bound: list[Bound],
    what: str,
) -> Evaluation:
    outcome = _decide(interval, region)
    numbers: dict[str, float | int | str | None] = {
        "estimate": interval.estimate,
        "low": interval.low,
        "high": interval.high,
        "n": interval.n,
        "df": interval.df,
        "region_low": region[0] if math.isfinite(region[0]) else None,
        "region_high": region[1] if math.isfinite(region[1]) else None,
    }
    flags: list[str] = []
    if interval.single:
        flags.append("single_seed")
        rule = "P1" if outcome == "holds" else "P2"
    else:
        rule = {"holds": "S1", "fails": "S2", "undecided": "S3"}[outcome]
        if outcome == "undecided":
            flags.append("too_noisy")
    verdict: CheckVerdict = {
        "S1": "verified",
        "P1": "verified",
        "S2": "falsified",
        "P2": "falsified",
        "S3": "inconclusive",
    }[rule]  # type: ignore[assignment]
    shown = (
        f"{interval.estimate:.4g}"
        if interval.single
        else (f"{interval.estimate:.4g} [{interval.low:.4g}, {interval.high:.4g}]")
    )
    return Evaluation(
        verdict=verdict,
        rule=rule,
        rule_name=RULES[rule],
        relation=check.relation,
        description=check.describe(),
        test=interval.test,
        numbers=numbers,
        flags=flags,
        bound=bound,
        detail=f"{what} = {shown}; claimed region [{region[0]:.4g}, {region[1]:.4g}]",
    )


def _undecided(
    check: Check, rule: str, flag: str, detail: str, bound: list[Bound] | None = None
) -> Evaluation:
    return Evaluation(
        verdict="inconclusive",
        rule=rule,
        rule_name=RULES[rule],
        relation=check.relation,
        description=check.describe(),
        flags=[flag],
        bound=bound or [],
        detail=detail,
    )


# -- the relations ----------------------------------------------------------------------------


def _values(b: Bound) -> list[float]:
    return b.seeds if b.seeds else [y for _, y in b.points]


def _percent_vs_fractions(check: Check, values: Iterable[float]) -> bool:
    constant = check.constant
    if constant is None or "%" not in constant.text or abs(constant.value) <= 1:
        return False
    seen = list(values)
    return bool(seen) and all(0.0 <= v <= 1.0 for v in seen) and any(v != 0 for v in seen)


def _fraction_vs_percents(check: Check, values: Iterable[float]) -> bool:
    """The check's constant is the hundredth of a percentage the quote writes ("88.1%" read as
    0.881) and a measured value is above 1: the values are in percent, the constant is not."""
    constant = check.constant
    if constant is None or "%" not in constant.text or abs(constant.value) > 1:
        return False
    written = [m.value for m in find_numbers(constant.text) if m.unit == "%"]
    hundredth = any(
        m != 0 and math.isclose(abs(constant.value) * 100, abs(m), rel_tol=1e-9) for m in written
    )
    return hundredth and any(abs(v) > 1 for v in values)


def _against_constant(check: Check, bound: Mapping[str, Bound], confidence: float) -> Evaluation:
    b = bound[check.subject]
    values = _values(b)
    if _percent_vs_fractions(check, values):
        return _undecided(
            check,
            "E3",
            "unit_mismatch",
            "the paper's number is a percentage, every measured value a fraction",
            [b],
        )
    if _fraction_vs_percents(check, values):
        return _undecided(
            check,
            "E3",
            "unit_mismatch",
            "the check reads the paper's percentage as a fraction, a measured value is in percent",
            [b],
        )
    assert check.constant is not None
    c = check.constant.value
    upper = check.upper.value if check.upper else None
    op = Comparator.eq if check.relation is Relation.equal else (check.comparator or Comparator.eq)
    region = _region(op, c, check.tolerance.margin(c), upper, check.tolerance.margin(upper or 0.0))
    return _scalar_result(
        check, mean_interval(values, confidence), region, [b], f"mean {check.subject}"
    )


def _two_sided(
    check: Check, bound: Mapping[str, Bound], baseline: str, confidence: float
) -> Evaluation:
    a, b = bound[check.subject], bound[baseline]
    va, vb = _values(a), _values(b)
    mean_b = math.fsum(vb) / len(vb)
    r = check.relation
    if r is Relation.ratio or (r is Relation.difference and check.relative):
        if any(v <= 0 for v in [*va, *vb]):
            return _undecided(
                check, "E4", "nonpositive", "a ratio needs positive values on both sides", [a, b]
            )
        interval = ratio_interval(va, vb, confidence)
        what = f"{check.subject} / {baseline}"
        if r is Relation.difference:  # relative difference = ratio - 1
            interval = interval.model_copy(
                update={
                    "estimate": interval.estimate - 1,
                    "low": interval.low - 1,
                    "high": interval.high - 1,
                }
            )
            what = f"({check.subject} - {baseline}) / {baseline}"
    else:
        interval = welch_interval(va, vb, confidence)
        what = f"{check.subject} - {baseline}"
    if r in {Relation.difference, Relation.ratio}:
        assert check.constant is not None
        c = check.constant.value
        upper = check.upper.value if check.upper else None
        region = _region(
            check.comparator or Comparator.eq,
            c,
            check.tolerance.margin(c),
            upper,
            check.tolerance.margin(upper or 0.0),
        )
    elif r is Relation.comparable:
        region = _region(Comparator.eq, 0.0, check.tolerance.margin(mean_b), None, 0.0)
    else:  # ordering: subject <comparator> baseline, the tolerance only for ge / le
        op = check.comparator or (
            Comparator.lt if check.direction is Direction.lower else Comparator.gt
        )
        slack = check.tolerance.margin(mean_b) if op in {Comparator.ge, Comparator.le} else 0.0
        region = _region(op, 0.0, slack, None, 0.0)
    return _scalar_result(check, interval, region, [a, b], what)


def _ordering(check: Check, bound: Mapping[str, Bound], confidence: float) -> Evaluation:
    if len(check.baselines) == 1:
        return _two_sided(check, bound, check.baselines[0], confidence)
    parts = []
    for baseline in check.baselines:
        part = _two_sided(check, bound, baseline, confidence)
        parts.append(part.model_copy(update={"at": baseline}))
    return _combine(check, parts, [bound[n] for n in [check.subject, *check.baselines]])


def _change(check: Check, bound: Mapping[str, Bound], confidence: float) -> Evaluation:
    after, before = check.subject, check.baselines[0]
    va, vb = _values(bound[after]), _values(bound[before])
    parts: list[Evaluation] = []
    if check.constant is not None and check.upper is not None:
        end = check.upper.value
        end_check = Check(
            relation=Relation.equal,
            quantities=check.quantities,
            subject=after,
            constant=check.upper,
            tolerance=check.tolerance,
        )
        region = _region(Comparator.eq, end, check.tolerance.margin(end), None, 0.0)
        parts.append(
            _scalar_result(
                end_check, mean_interval(va, confidence), region, [bound[after]], f"mean {after}"
            ).model_copy(update={"at": "end value"})
        )
        rising = end > check.constant.value
    else:
        rising = check.trend is Trend.increasing
    sign_check = Check(
        relation=Relation.ordering,
        quantities=check.quantities,
        subject=after,
        baselines=[before],
        comparator=Comparator.gt if rising else Comparator.lt,
    )
    region = _region(Comparator.gt if rising else Comparator.lt, 0.0, 0.0, None, 0.0)
    parts.append(
        _scalar_result(
            sign_check,
            welch_interval(va, vb, confidence),
            region,
            [bound[after], bound[before]],
            f"{after} - {before}",
        ).model_copy(update={"at": "direction of change"})
    )
    if len(parts) == 1:
        return parts[0].model_copy(
            update={"relation": check.relation, "description": check.describe()}
        )
    return _combine(check, parts, [bound[after], bound[before]])


def _xy(b: Bound) -> tuple[list[float], list[float]] | None:
    try:
        return [float(x) for x, _ in b.points], [y for _, y in b.points]
    except (TypeError, ValueError):
        return None


def _steps_against(
    check: Check, x: Sequence[float], y: Sequence[float], confidence: float
) -> list[str]:
    """Each step between neighbouring sweep points that goes against the claimed direction by
    more than the tolerance (of the level it leaves), confidently (Welch) where both points
    have several seeds: what makes a series not monotone."""
    by_x: dict[float, list[float]] = {}
    for xi, yi in zip(x, y, strict=True):
        by_x.setdefault(xi, []).append(yi)
    rising = check.trend is not Trend.decreasing
    found: list[str] = []
    ordered = sorted(by_x)
    for left, right in itertools.pairwise(ordered):
        before, after = by_x[left], by_x[right]
        level = math.fsum(before) / len(before)
        # (never below a billionth of the series' range: rounding noise at a level of 0)
        margin = max(check.tolerance.margin(level), 1e-9 * (max(y) - min(y)))
        step = welch_interval(after, before, confidence)  # after - before
        # rising: a confident fall beyond the margin; falling: a confident rise beyond it
        against = step.high < -margin if rising else step.low > margin
        if against:
            found.append(f"{_label(left)} -> {_label(right)}: {step.estimate:+.4g}")
    return found


def _trend(check: Check, bound: Mapping[str, Bound], confidence: float) -> Evaluation:
    from scipy import stats

    b = bound[check.subject]
    xy = _xy(b)
    if xy is None or len(set(xy[0])) < 3:
        return _undecided(
            check,
            "E5",
            "too_few_points",
            "a trend needs a sweep with at least 3 numeric x values",
            [b],
        )
    x, y = xy
    fit = stats.linregress(x, y)
    df = len(x) - 2
    slope, stderr = float(fit.slope), _stderr(fit.stderr)
    half = float(stats.t.ppf(0.5 + confidence / 2, df)) * stderr if df > 0 else math.inf
    interval = Interval(
        estimate=slope,
        low=slope - half,
        high=slope + half,
        n=len(x),
        df=df,
        test=f"least-squares slope, t interval ({confidence:.0%})",
    )
    op = Comparator.gt if check.trend is Trend.increasing else Comparator.lt
    result = _scalar_result(
        check,
        interval,
        _region(op, 0.0, 0.0, None, 0.0),
        [b],
        f"slope of {check.subject} over {check.sweep or 'x'}",
    )
    rho = stats.spearmanr(x, y)
    result.numbers["spearman_rho"] = _finite(rho.statistic)
    result.numbers["p_slope"] = _finite(fit.pvalue)
    # the rank test (Kendall's tau-b of y against x: Mann-Kendall over the sweep) decides a
    # monotone trend the line does not fit (a fall that flattens out)
    tau = stats.kendalltau(x, y)
    tau_value, p_tau = _finite(tau.statistic), float(tau.pvalue)
    result.numbers["kendall_tau"] = tau_value
    result.numbers["p_kendall"] = p_tau if math.isfinite(p_tau) else None
    claimed_sign = 1.0 if check.trend is Trend.increasing else -1.0
    if math.isfinite(p_tau) and p_tau < 1 - confidence and tau_value != 0:
        ranks = "holds" if tau_value * claimed_sign > 0 else "fails"
    else:
        ranks = "undecided"
    slope_outcome = {"S1": "holds", "S2": "fails"}.get(result.rule, "undecided")
    against = _steps_against(check, x, y, confidence)
    tests = f"{interval.test}; Kendall's tau rank test ({confidence:.0%})"
    shown = f"tau = {tau_value:.3g} (p = {p_tau:.3g})"

    def outcome(rule: str, verdict: CheckVerdict, detail: str, *flags: str) -> Evaluation:
        return result.model_copy(
            update={
                "rule": rule,
                "rule_name": RULES[rule],
                "verdict": verdict,
                "test": tests,
                "flags": sorted({*(f for f in result.flags if f != "too_noisy"), *flags}),
                "detail": f"{result.detail}; {shown}" + (f"; {detail}" if detail else ""),
            }
        )

    if {slope_outcome, ranks} == {"holds", "fails"}:
        return outcome("M3", "inconclusive", "the slope and the ranks disagree", "non_monotone")
    if "fails" in (slope_outcome, ranks):
        if slope_outcome == "fails":
            return outcome("S2", "falsified", "")
        return outcome("M2", "falsified", "the ranks go against the claimed direction")
    if "holds" in (slope_outcome, ranks) and against:
        return outcome(
            "M3", "inconclusive", "steps against the trend: " + "; ".join(against), "non_monotone"
        )
    if slope_outcome == "holds":
        return outcome("S1", "verified", "")
    if ranks == "holds":
        return outcome("M1", "verified", "the ranks are monotone where the line is not decided")
    return outcome("S3", "inconclusive", "", "too_noisy")


_LAWS: dict[GrowthLaw, Any] = {
    GrowthLaw.logarithmic: math.log,
    GrowthLaw.linear: lambda v: v,
    GrowthLaw.quadratic: lambda v: v * v,
}


def _aicc(rss: float, n: int, k: int) -> float:
    aic = n * math.log(max(rss, 1e-300) / n) + 2 * k
    return aic + (2 * k * (k + 1) / (n - k - 1) if n - k - 1 > 0 else 0.0)


def _growth(check: Check, bound: Mapping[str, Bound], confidence: float) -> Evaluation:
    from scipy import stats

    b = bound[check.subject]
    xy = _xy(b)
    if xy is None or len(set(xy[0])) < 3:
        return _undecided(
            check,
            "E5",
            "too_few_points",
            "a growth law needs a sweep with at least 3 numeric x values",
            [b],
        )
    x, y = xy
    law = check.law or GrowthLaw.linear
    if law is GrowthLaw.exponential:
        return _exponential(check, b, x, y, confidence)
    logs_y = law in {GrowthLaw.power, GrowthLaw.sublinear}
    if any(v <= 0 for v in x) and law is not GrowthLaw.linear and law is not GrowthLaw.quadratic:
        return _undecided(check, "E4", "nonpositive", "log-scale fits need positive x", [b])
    if logs_y and any(v <= 0 for v in y):
        return _undecided(check, "E4", "nonpositive", "a power law needs positive values", [b])
    t = float(stats.t.ppf(0.5 + confidence / 2, max(len(x) - 2, 1)))
    if law in {GrowthLaw.power, GrowthLaw.sublinear}:
        fit = stats.linregress([math.log(v) for v in x], [math.log(v) for v in y])
        p, se = float(fit.slope), _stderr(fit.stderr)
        interval = Interval(
            estimate=p,
            low=p - t * se,
            high=p + t * se,
            n=len(x),
            df=len(x) - 2,
            test=f"log-log least squares, exponent t interval ({confidence:.0%})",
        )
        if law is GrowthLaw.sublinear:
            region = _region(Comparator.lt, 1.0, 0.0, None, 0.0)
        elif check.constant is not None:
            c = check.constant.value
            region = _region(Comparator.eq, c, check.tolerance.margin(c), None, 0.0)
        else:  # the sign of the exponent: growing (> 0) or falling (< 0)
            falling = check.trend is Trend.decreasing
            region = _region(Comparator.lt if falling else Comparator.gt, 0.0, 0.0, None, 0.0)
        result = _scalar_result(check, interval, region, [b], "exponent")
        return result
    n = len(x)
    mean_y = math.fsum(y) / n
    scores: dict[str, float] = {
        GrowthLaw.constant.value: _aicc(math.fsum((v - mean_y) ** 2 for v in y), n, 1)
    }
    rates: dict[str, Interval] = {}
    for name, f in _LAWS.items():
        if name is GrowthLaw.logarithmic and any(v <= 0 for v in x):
            continue
        rss, rates[name.value] = _fit_line([f(v) for v in x], y, t)
        scores[name.value] = _aicc(rss, n, 2)
    claimed = scores[law.value]
    rivals = {k: v for k, v in scores.items() if k != law.value}
    best_rival = min(rivals.values())
    numbers: dict[str, float | int | str | None] = {f"aicc_{k}": v for k, v in scores.items()}
    numbers["n"] = n
    rate_outcome = "holds"
    if law.value in rates:
        rate = rates[law.value]
        numbers.update({"rate": rate.estimate, "rate_low": rate.low, "rate_high": rate.high})
        rate_outcome = _rate_outcome(check, rate, rate)
    rule, verdict = _law_rule(claimed, best_rival, rate_outcome)
    winner = min(scores, key=lambda k: scores[k])
    return Evaluation(
        verdict=verdict,
        rule=rule,
        rule_name=RULES[rule],
        relation=check.relation,
        description=check.describe(),
        numbers=numbers,
        bound=[b],
        flags=["too_noisy"] if rule == "G3" else [],
        test="least-squares fits of constant, logarithmic, linear, quadratic laws compared by AICc",
        detail=f"best fit: {winner}; claimed: {law.value}"
        + ("" if rate_outcome == "holds" else "; the fitted rate is off (sign or stated value)"),
    )


def _rate_outcome(check: Check, rate: Interval, stated: Interval) -> str:
    """Whether a fitted law's rate says what the claim says: its sign ("grows" is a positive
    rate, "falls" a negative one) and, where the check states a constant, ``stated`` (the rate
    itself, or the base it gives) within the tolerance of it."""
    falling = check.trend is Trend.decreasing
    outcome = _decide(
        rate, _region(Comparator.lt if falling else Comparator.gt, 0.0, 0.0, None, 0.0)
    )
    if check.constant is not None and outcome != "fails":
        c = check.constant.value
        said = _decide(stated, _region(Comparator.eq, c, check.tolerance.margin(c), None, 0.0))
        outcome = said if said != "holds" else outcome
    return outcome


def _law_rule(claimed: float, best_rival: float, rate_outcome: str) -> tuple[str, CheckVerdict]:
    """Rules G1-G3: the claimed law fits best by a margin and its rate holds; a rival fits
    best by a margin or the rate fails; otherwise undecided."""
    if claimed + AIC_MARGIN <= best_rival and rate_outcome == "holds":
        return "G1", "verified"
    if best_rival + AIC_MARGIN <= claimed or rate_outcome == "fails":
        return "G2", "falsified"
    return "G3", "inconclusive"


def _fit_line(fx: Sequence[float], ly: Sequence[float], t: float) -> tuple[float, Interval]:
    """The residual sum of squares of ``ly`` on ``fx`` and the slope with its t interval."""
    from scipy import stats

    fit = stats.linregress(fx, ly)
    rss = math.fsum(
        (yi - (fit.intercept + fit.slope * fi)) ** 2 for fi, yi in zip(fx, ly, strict=True)
    )
    se = _stderr(fit.stderr)
    slope = float(fit.slope)
    return float(rss), Interval(
        estimate=slope, low=slope - t * se, high=slope + t * se, n=len(fx), df=len(fx) - 2
    )


def _exponential(
    check: Check, b: Bound, x: Sequence[float], y: Sequence[float], confidence: float
) -> Evaluation:
    """An exponential law ``y = a b^x``: ``log y`` linear in ``x``, compared by AICc (on
    ``log y``) with a power law (``log y`` linear in ``log x``, where every x > 0) and a
    constant; the growth rate ``ln b`` must have the claimed sign, a stated base b must lie
    within the tolerance (rules G1-G3, as for the other laws)."""
    from scipy import stats

    if any(v <= 0 for v in y):
        return _undecided(
            check, "E4", "nonpositive", "an exponential law needs positive values", [b]
        )
    n = len(x)
    t = float(stats.t.ppf(0.5 + confidence / 2, max(n - 2, 1)))
    ly = [math.log(v) for v in y]
    mean_ly = math.fsum(ly) / n
    scores: dict[str, float] = {
        GrowthLaw.constant.value: _aicc(math.fsum((v - mean_ly) ** 2 for v in ly), n, 1)
    }
    rss, rate = _fit_line(x, ly, t)
    scores[GrowthLaw.exponential.value] = _aicc(rss, n, 2)
    if all(v > 0 for v in x):
        rss_power, _ = _fit_line([math.log(v) for v in x], ly, t)
        scores[GrowthLaw.power.value] = _aicc(rss_power, n, 2)
    base = Interval(
        estimate=math.exp(rate.estimate),
        low=math.exp(max(min(rate.low, 700.0), -700.0)),
        high=math.exp(max(min(rate.high, 700.0), -700.0)),
        n=n,
        df=n - 2,
    )
    rate_outcome = _rate_outcome(check, rate, base)
    claimed = scores[GrowthLaw.exponential.value]
    best_rival = min(v for k, v in scores.items() if k != GrowthLaw.exponential.value)
    rule, verdict = _law_rule(claimed, best_rival, rate_outcome)
    numbers: dict[str, float | int | str | None] = {f"aicc_{k}": v for k, v in scores.items()}
    numbers.update(
        {
            "n": n,
            "rate": rate.estimate,
            "rate_low": rate.low,
            "rate_high": rate.high,
            "base": base.estimate,
            "base_low": base.low,
            "base_high": base.high,
        }
    )
    winner = min(scores, key=lambda k: scores[k])
    return Evaluation(
        verdict=verdict,
        rule=rule,
        rule_name=RULES[rule],
        relation=check.relation,
        description=check.describe(),
        numbers=numbers,
        bound=[b],
        flags=["too_noisy"] if rule == "G3" else [],
        test="least-squares fits of log y: exponential (on x), power (on log x), constant, "
        "compared by AICc; growth rate ln(base) with its t interval "
        f"({confidence:.0%})",
        detail=f"best fit: {winner}; claimed: exponential; base {base.estimate:.4g} "
        f"[{base.low:.4g}, {base.high:.4g}]"
        + ("" if rate_outcome == "holds" else "; the fitted rate is off (sign or stated base)"),
    )


def _rate(check: Check, bound: Mapping[str, Bound], confidence: float) -> Evaluation:
    """An asymptotic rate: the exponent ``p`` of the log-log least-squares fit of the subject
    over the sweep (``log y - q log log x`` on ``log x`` for a log factor ``log^q x``), with its
    t interval, against the claimed order: ``O`` holds when ``p <= exponent + margin`` (a faster
    decay holds too), ``Omega`` when ``p >= exponent - margin``, ``Theta`` within the margin on
    both sides; the negation is the interval wholly outside (rules O1-O3)."""
    from scipy import stats

    assert check.rate is not None
    b = bound[check.subject]
    xy = _xy(b)
    if xy is None or len(set(xy[0])) < 3:
        return _undecided(
            check, "E5", "too_few_points", "a rate needs a sweep with at least 3 numeric x values",
            [b],
        )  # fmt: skip
    x, y = xy
    rate = check.rate
    q = rate.log_exponent.value if rate.log_exponent is not None else 0.0
    # a sweep wholly below 1 (r, epsilon, delta, eta) is read towards 0: there a log factor is
    # log(1/x), and a smaller exponent is the larger value (the order's comparison turns over)
    small = all(0 < v < 1 for v in x)
    if any(v <= 0 for v in x) or (q and not small and any(v <= 1 for v in x)):
        why = "a rate's log-log fit needs x > 0" + (
            " (with a log factor: every x > 1, or every x < 1)" if q else ""
        )
        return _undecided(check, "E4", "nonpositive", why, [b])
    if any(v <= 0 for v in y):
        return _undecided(
            check, "E4", "nonpositive",
            "a rate's log-log fit needs positive values (log an error's magnitude)", [b],
        )  # fmt: skip
    lx = [math.log(v) for v in x]
    ly = [math.log(yi) for yi in y]
    if q:  # divide the log factor out: log^q(x) as x grows, log^q(1/x) as x shrinks to 0
        ly = [li - q * math.log(abs(math.log(xi))) for xi, li in zip(x, ly, strict=True)]
    n = len(x)
    t = float(stats.t.ppf(0.5 + confidence / 2, max(n - 2, 1)))
    _, interval = _fit_line(lx, ly, t)
    interval = interval.model_copy(
        update={"test": f"log-log least squares, exponent t interval ({confidence:.0%})"}
    )
    a, margin = rate.exponent.value, check.exponent_margin()
    op = {Order.O: Comparator.le, Order.Omega: Comparator.ge, Order.Theta: Comparator.eq}[
        rate.order
    ]
    if small:  # towards 0: O(r^2) is at most c r^2 there, so an exponent at least 2
        op = {Comparator.le: Comparator.ge, Comparator.ge: Comparator.le}.get(op, op)
    region = _region(op, a, margin, None, 0.0)
    outcome = _decide(interval, region)
    rule = {"holds": "O1", "fails": "O2", "undecided": "O3"}[outcome]
    verdict: CheckVerdict = {"O1": "verified", "O2": "falsified"}.get(  # type: ignore[assignment]
        rule, "inconclusive"
    )
    meaning = {
        Order.O: "a decay at least as fast (growth at most as fast) holds",
        Order.Omega: "a growth at least as fast (decay at most as fast) holds",
        Order.Theta: "the exponent must match on both sides",
    }[rate.order]
    if small:
        meaning = {
            Order.O: f"as {check.sweep or 'x'} goes to 0: at most of that order, so an "
            "exponent at least the claimed one",
            Order.Omega: f"as {check.sweep or 'x'} goes to 0: at least of that order, so an "
            "exponent at most the claimed one",
            Order.Theta: f"as {check.sweep or 'x'} goes to 0: the exponent must match",
        }[rate.order]
    return Evaluation(
        verdict=verdict,
        rule=rule,
        rule_name=RULES[rule],
        relation=check.relation,
        description=check.describe(),
        test=interval.test,
        numbers={
            "exponent": interval.estimate,
            "low": interval.low,
            "high": interval.high,
            "n": n,
            "df": interval.df,
            "claimed_exponent": a,
            "log_exponent": q,
            "limit": "0" if small else "infinity",  # where the sweep is read towards
            "margin": margin,
            # the claimed exponents (not values of the subject: a chart draws no line there)
            "exponent_low": region[0] if math.isfinite(region[0]) else None,
            "exponent_high": region[1] if math.isfinite(region[1]) else None,
        },
        flags=["too_noisy"] if rule == "O3" else [],
        bound=[b],
        detail=f"fitted exponent of {check.subject} in {check.sweep or 'x'} = "
        f"{interval.estimate:.4g} [{interval.low:.4g}, {interval.high:.4g}]; claimed "
        f"{rate.describe()}: exponent in [{region[0]:.4g}, {region[1]:.4g}] ({meaning})",
    )


def _identity(check: Check, bound: Mapping[str, Bound], confidence: float) -> Evaluation:
    """A numerical identity: every residual's magnitude at most the tolerance (I1); at some
    sweep point (or among the seeds) every residual above it, and their mean's t interval too
    (a single value: the value decides, flag ``single_seed``) (I2); otherwise undecided (I3)."""
    b = bound[check.subject]
    tol = check.identity_tolerance()
    groups: dict[str, list[float]] = {}
    if b.points:
        for x, yv in b.points:
            groups.setdefault(_label(x), []).append(abs(yv))
    else:
        groups[""] = [abs(v) for v in b.seeds]
    values = [v for vs in groups.values() for v in vs]
    worst = max(values)
    numbers: dict[str, float | int | str | None] = {
        "max_residual": worst,
        "tolerance": tol,
        "n": len(values),
    }
    flags: list[str] = []
    above = ""
    for where, vs in groups.items():
        if not all(v > tol for v in vs):
            continue
        interval = mean_interval(vs, confidence)
        if interval.single or interval.low > tol:
            above = where or "the seeds"
            numbers.update({"estimate": interval.estimate, "low": interval.low})
            if interval.single:
                flags.append("single_seed")
            break
    if worst <= tol:
        rule, verdict = "I1", "verified"
        detail = f"max |{check.subject}| = {worst:.3g} <= {tol:.3g}"
    elif above:
        rule, verdict = "I2", "falsified"
        where = f" at {check.sweep or 'x'} = {above}" if above != "the seeds" else ""
        detail = f"|{check.subject}|{where} above {tol:.3g} (max {worst:.3g})"
    else:
        rule, verdict = "I3", "inconclusive"
        detail = f"some residuals above {tol:.3g} (max {worst:.3g}), not confidently"
        flags.append("too_noisy")
    return Evaluation(
        verdict=verdict,
        rule=rule,
        rule_name=RULES[rule],
        relation=check.relation,
        description=check.describe(),
        test=f"largest residual against the tolerance; one-sample t interval ({confidence:.0%}) "
        "where every residual exceeds it",
        numbers=numbers,
        flags=flags,
        bound=[b],
        detail=detail,
    )


def _combine(check: Check, parts: list[Evaluation], bound: list[Bound]) -> Evaluation:
    verdicts = [p.verdict for p in parts]
    if "falsified" in verdicts:
        rule, verdict = "A1", "falsified"
    elif all(v == "verified" for v in verdicts):
        rule, verdict = "A2", "verified"
    elif all(v in {"verified", "toy"} for v in verdicts):
        rule, verdict = "A3", "toy"
    else:
        rule, verdict = "A4", "inconclusive"
    flags = sorted({f for p in parts for f in p.flags})
    return Evaluation(
        verdict=verdict,
        rule=rule,
        rule_name=RULES[rule],
        relation=check.relation,
        description=check.describe(),
        parts=parts,
        flags=flags,
        bound=bound,
        test="conjunction of the parts",
        detail=", ".join(f"{p.at or p.relation.value}: {p.verdict}" for p in parts),
    )


def _label(x: X) -> str:
    return x if isinstance(x, str) else f"{x:g}"


def _sweep_points(check: Check, bound: Mapping[str, Bound]) -> list[X]:
    xs: list[X] = []
    for q in check.all_quantities():
        b = bound.get(q.name)
        for x, _ in b.points if b else []:
            if x not in xs:
                xs.append(x)
    return xs


def _in_domain(x: X, domain: Sequence[Constant]) -> bool:
    if isinstance(x, str):
        return x in {_label(c.value) for c in domain}
    return any(math.isclose(x, c.value, rel_tol=1e-9, abs_tol=1e-12) for c in domain)


def _setting(name: str) -> str:
    """A setting's name as compared: case, spaces and punctuation aside ("CIFAR-10" = "cifar10")."""
    return "".join(ch for ch in name.lower() if ch.isalnum())


def _in_labels(x: X, labels: Sequence[str]) -> bool:
    return _setting(_label(x)) in {_setting(label) for label in labels}


def _unmeasured(check: Check, xs: Sequence[X]) -> list[str]:
    """The values (as the quote writes them) of a for_all's enumerated ``domain`` or
    ``labels`` that no sweep point measured."""
    missing = [c.text for c in check.domain if not any(_in_domain(x, [c]) for x in xs)]
    return missing + [
        label for label in check.labels if not any(_in_labels(x, [label]) for x in xs)
    ]


def _counted(
    check: Check, parts: Sequence[Evaluation], xs: Sequence[X]
) -> tuple[str, CheckVerdict, str, list[str]]:
    """A for_all that counts its settings ("across four datasets", "in 9 of 10 tasks"): the
    claim's ``count`` n settings (the measured ones when they are n or fewer: with more, the
    extra ones might not be the claim's, so they are discounted), ``at_least`` k of them (all
    n when unset) must hold; more than n - k failing refutes it."""
    named = len(check.labels) + len(check.domain)
    n = int(check.count.value) if check.count is not None else (named or None)
    m = len(parts)
    k = int(check.at_least.value) if check.at_least is not None else (n or m)
    extra = max(m - n, 0) if n is not None else 0
    held = sum(p.verdict == "verified" for p in parts)
    failed = sum(p.verdict == "falsified" for p in parts)
    what = check.sweep or "setting"
    counted = f"{held} of {m} measured hold, {failed} fail"
    if n is not None and failed - extra > n - k:
        where = ", ".join(p.at for p in parts if p.verdict == "falsified")
        return "U7", "falsified", f"{counted}; the claim allows at most {n - k} of {n} to fail " \
            f"(fails at {what} = {where})", []  # fmt: skip
    if held - extra >= k and not (n is not None and check.at_least is None and m < n):
        return "U6", "verified", f"{counted}; the claim needs {k}" + (f" of {n}" if n else ""), []
    if n is not None and m < n and failed == 0:
        return (
            "U5",
            "inconclusive",
            f"{counted}; only {m} of the claim's {n} {what}s measured",
            ["incomplete"],
        )
    return "U4", "inconclusive", f"{counted}; the claim needs {k}" + (f" of {n}" if n else ""), []


def _quantified(check: Check, bound: Mapping[str, Bound], confidence: float) -> Evaluation:
    assert check.inner is not None
    inner = check.inner
    xs = _sweep_points(inner, bound)
    if check.domain:  # a point outside the claim's enumerated domain neither holds nor refutes
        xs = [x for x in xs if _in_domain(x, check.domain)]
    if check.labels:  # likewise for named settings
        xs = [x for x in xs if _in_labels(x, check.labels)]
    used = [bound[q.name] for q in inner.all_quantities() if q.name in bound]
    if not xs:
        return _undecided(
            check, "E1", "unbound", f"no sweep over {check.sweep or 'the variable'} was bound", used
        )
    parts: list[Evaluation] = []
    for x in xs:
        local: dict[str, Bound] = {}
        for q in inner.all_quantities():
            b = bound[q.name]
            values = b.at(x) if b.points else b.seeds
            local[q.name] = Bound(quantity=q.name, seeds=values, pointers=b.pointers)
        if any(not v.seeds for v in local.values()):
            missing = _undecided(inner, "E1", "unbound", f"nothing measured at {x}")
            parts.append(missing.model_copy(update={"at": _label(x)}))
            continue
        parts.append(_evaluate(inner, local, confidence).model_copy(update={"at": _label(x)}))
    verdicts = [p.verdict for p in parts]
    flags = sorted({f for p in parts for f in p.flags})
    unmeasured = _unmeasured(check, xs) if check.relation is Relation.for_all else []
    if check.relation is Relation.for_all and (check.count or check.at_least) and not unmeasured:
        rule, verdict, detail, more = _counted(check, parts, xs)
        flags += more
    elif check.relation is Relation.for_all and check.at_least is not None:
        held = sum(p.verdict == "verified" for p in parts)
        failed = sum(p.verdict == "falsified" for p in parts)
        k, n = int(check.at_least.value), len(check.labels) + len(check.domain)
        if held >= k:
            rule, verdict, detail = "U6", "verified", f"{held} of the named settings hold"
        elif failed > n - k:
            rule, verdict = "U7", "falsified"
            detail = f"{failed} of the {n} named settings fail; the claim allows {n - k}"
        else:  # the unmeasured ones might hold or fail
            rule, verdict = "U5", "inconclusive"
            detail = f"{held} hold; not measured at " + ", ".join(unmeasured)
            flags.append("incomplete")
    elif check.relation is Relation.for_all:
        if "falsified" in verdicts:
            rule, verdict = "U1", "falsified"
            where = next(p.at for p in parts if p.verdict == "falsified")
            detail = f"counterexample at {check.sweep or 'x'} = {where}"
        elif all(v == "verified" for v in verdicts) and unmeasured:
            rule, verdict = "U5", "inconclusive"
            detail = f"holds at all {len(parts)} points measured, but not measured at " + (
                ", ".join(f"{check.sweep or 'x'} = {c}" for c in unmeasured)
            )
            flags.append("incomplete")
        elif all(v == "verified" for v in verdicts):
            rule, verdict = ("U2", "toy") if check.unbounded else ("U3", "verified")
            detail = f"holds at all {len(parts)} points"
            if check.unbounded:
                flags.append("finite_horizon")
        else:
            rule, verdict, detail = "U4", "inconclusive", "not decided at every point"
    elif "verified" in verdicts:
        rule, verdict = "X1", "verified"
        where = next(p.at for p in parts if p.verdict == "verified")
        detail = f"instance at {check.sweep or 'x'} = {where}"
    else:
        rule, verdict, detail = "X2", "inconclusive", f"none of {len(parts)} points verifies it"
        flags.append("no_instance")
    return Evaluation(
        verdict=verdict,
        rule=rule,
        rule_name=RULES[rule],
        relation=check.relation,
        description=check.describe(),
        parts=parts,
        flags=sorted(set(flags)),
        bound=used,
        detail=detail,
        test=f"inner check at each of {len(parts)} sweep points",
    )


def _evaluate(check: Check, bound: Mapping[str, Bound], confidence: float) -> Evaluation:
    r = check.relation
    if r is Relation.human:
        return _undecided(check, "E2", "needs_human", "only a person can judge this claim")
    if r is Relation.all_of:
        parts = [_evaluate(p, bound, confidence) for p in check.parts]
        used = list({b.quantity: b for p in parts for b in p.bound}.values())
        return _combine(check, parts, used)
    if r in {Relation.for_all, Relation.exists}:
        return _quantified(check, bound, confidence)
    needed = [check.subject, *check.baselines]
    missing = [n for n in needed if n not in bound or bound[n].empty]
    if missing:
        return _undecided(
            check,
            "E1",
            "unbound",
            f"no value bound for {', '.join(missing)}",
            [bound[n] for n in needed if n in bound],
        )
    if r in {Relation.equal, Relation.bound}:
        return _against_constant(check, bound, confidence)
    if r in {Relation.difference, Relation.ratio, Relation.comparable}:
        return _two_sided(check, bound, check.baselines[0], confidence)
    if r is Relation.ordering:
        return _ordering(check, bound, confidence)
    if r is Relation.change:
        return _change(check, bound, confidence)
    if r is Relation.trend:
        return _trend(check, bound, confidence)
    if r is Relation.rate:
        return _rate(check, bound, confidence)
    if r is Relation.identity:
        return _identity(check, bound, confidence)
    return _growth(check, bound, confidence)


def evaluate(
    check: Check,
    bound: Mapping[str, Bound] | Sequence[Bound],
    *,
    confidence: float = CONFIDENCE,
    reduced_scale: bool = False,
) -> Evaluation:
    """Decide ``check`` on the values bound to its quantities (see the module docstring).

    ``bound`` maps quantity names to their :class:`Bound` values (or lists them); a quantity
    missing from it is unbound (rule E1). ``reduced_scale`` is the caller's finding that the run
    was at reduced scale against ``check.scale`` (rule C1).
    """
    pairs = bound.items() if isinstance(bound, Mapping) else ((b.quantity, b) for b in bound)
    by_name = {name: _usable_bound(b) for name, b in pairs}
    result = _evaluate(check, by_name, confidence)
    if reduced_scale and result.verdict in {"verified", "falsified"}:
        result = result.model_copy(
            update={
                "verdict": "toy",
                "rule": "C1",
                "rule_name": RULES["C1"],
                "flags": sorted({*result.flags, "reduced_scale"}),
                "detail": f"{result.detail}; at reduced scale the relation {result.verdict[:-1]}s "
                "only a toy version of the claim",
            }
        )
    return result.model_copy(update={"check": check})


Evaluation.model_rebuild()
