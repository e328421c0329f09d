"""The deterministic core of the judge: compare measured with reported values, then apply the
decision table. No LLM is involved here; the LLM path only finds measurements, and its findings
pass through the same comparison and the same table.

Comparison (:func:`compare`):
- only measurements logged *during* a recorded run that *succeeded* count, and only those whose
  run was not downgraded to ``testimony`` by the provenance checks
  (:mod:`openrepro.evidence.checks`: a hand-made or edited run cell, a failed replay);
- one value per seed (the run's last logged step); identical seeds count as one;
- with 3 or more seeds, the 95 % prediction interval of the seeds,
  ``mean ± t(0.975, n-1) · sd · sqrt(1 + 1/n)`` (CORE-Bench's interval), gauges their noise:
  when it is no wider than the tolerance, the paper's value matches if it lies inside it or
  within the tolerance of the seeds' mean (near-identical seeds give an interval too narrow to
  be a fair test of a value the claim states to a tolerance); when it is wider (one wild seed
  can make it hold anything), only unanimity decides: every seed within the tolerance matches,
  every seed outside it does not, a mix is too noisy to decide (no match either way);
- with fewer, the mean must be within the claim's tolerance of the paper's value, relative by
  default (:data:`DEFAULT_REL_TOL`, 5 %);
- for a reported change ("from 24.3 to 22.8"), the measured value must lie on the same side of
  the paper's baseline as the paper's value (direction of effect);
- a paper value in % with every measured value in [0, 1] (or the reverse) is a unit mismatch,
  never a match or a mismatch.

The decision table (:func:`decide`, first matching row wins):

| row | condition | verdict | flag |
| --- | --- | --- | --- |
| R1 | no usable measurement; some came from failed runs | inconclusive | run_failed |
| R2 | no usable measurement; some were logged outside any run | inconclusive | metric_outside_run |
| R2a | no usable measurement; some rest on runs downgraded to testimony | inconclusive | |
| R3 | no usable measurement | inconclusive | |
| R4 | units disagree | inconclusive | unit_mismatch |
| R5 | run at >= 10x smaller scale than the paper (parameters, data, steps) | toy | reduced_scale |
| R6 | measured value does not match | falsified | |
| R7 | matches, but the claim is quantified over all sizes/horizons | toy | finite_horizon |
| R8 | matches | verified | |
| R9 | (LLM path, several judges) the judges' verdicts differ | inconclusive | |

Testimony never changes a verdict: ``testimony_disagrees`` and ``injection_suspected`` are flags
for organizers, added alongside.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Sequence

from pydantic import BaseModel

from openrepro.claims.values import ReportedValue, Scale, parse_number
from openrepro.evidence.gather import claim_metric_prefix
from openrepro.evidence.records import Decision, Flag, Measurement, ScaleFigures, Verdict
from openrepro.logbooks.records import LogbookRecord

__all__ = [
    "DEFAULT_REL_TOL",
    "SCALE_DIMENSIONS",
    "SCALE_FACTOR",
    "Comparison",
    "compare",
    "decide",
    "is_quantified_over_all",
    "logbook_scale",
    "paper_scale",
    "parse_scale_number",
    "prediction_interval",
    "scale_ratio",
    "units_disagree",
]

DEFAULT_REL_TOL = 0.05
SCALE_FACTOR = 10.0
# Student's t, 0.975 quantile, by degrees of freedom (n - 1); beyond 30 the normal 1.96 is used.
_T975 = {
    1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
    10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
    18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060,
    26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042,
}  # fmt: skip


class Comparison(BaseModel):
    """What the comparison found; ``match`` is None when nothing comparable was measured."""

    match: bool | None = None
    measured: list[float] = []
    seeds: int = 0
    low: float | None = None
    high: float | None = None
    unit_mismatch: bool = False
    run_failed: bool = False
    outside_run: bool = False
    downgraded: bool = False  # some measurements rest on runs downgraded to testimony
    detail: str = ""


def prediction_interval(values: Sequence[float]) -> tuple[float, float]:
    """The 95 % prediction interval for one more draw, from at least 2 values."""
    n = len(values)
    mean = statistics.fmean(values)
    spread = statistics.stdev(values) * math.sqrt(1 + 1 / n)
    t = _T975.get(n - 1, 1.96)
    return mean - t * spread, mean + t * spread


def _per_seed(measurements: Sequence[Measurement]) -> list[float]:
    """One value per seed (run), in order: the last one logged. Identical seeds count as one
    (three copies of one value are one observation, never a zero-width interval)."""
    by_seed: dict[str, float] = {}
    for m in measurements:
        by_seed[m.seed or m.run or str(len(by_seed))] = m.value
    return list(dict.fromkeys(by_seed.values()))


_FRACTION_METRICS = frozenset(
    {"accuracy", "top-1 accuracy", "top-5 accuracy", "f1", "recall", "precision",
     "success rate", "win rate"}
)  # fmt: skip


def units_disagree(reported: ReportedValue, values: Sequence[float]) -> bool:
    """A percentage against fractions (or the reverse): 88.1 % vs 0.881 is not a mismatch of
    results but of units, and must not decide a verdict either way."""
    rate = reported.unit == "%" or reported.metric in _FRACTION_METRICS
    if not rate or not values:
        return False
    reported_percent = reported.unit == "%" or abs(reported.value) > 1
    measured_percent = any(abs(v) > 1 for v in values)
    return reported_percent != measured_percent and all(abs(v) <= 100 for v in values)


def compare(
    measurements: Sequence[Measurement],
    reported: ReportedValue,
    *,
    rel_tol: float = DEFAULT_REL_TOL,
) -> Comparison:
    """Compare a claim's measurements with one reported value (see the module docstring)."""
    usable = [
        m
        for m in measurements
        if m.within_run and m.run_ok and m.level != "testimony" and math.isfinite(m.value)
    ]
    result = Comparison(
        run_failed=any(m.within_run and not m.run_ok for m in measurements),
        outside_run=any(not m.within_run for m in measurements),
        downgraded=any(m.within_run and m.run_ok and m.level == "testimony" for m in measurements),
    )
    values = _per_seed(usable)
    if not values:
        result.detail = "no measurement from a successful recorded run"
        return result
    result.measured, result.seeds = values, len(values)
    try:
        return _compare_values(result, values, reported, rel_tol)
    except (OverflowError, ValueError):
        result.detail = "values too large to compare"
        return result


def _allowed(reported: ReportedValue, rel_tol: float) -> float:
    """The tolerance around the reported value, never below float rounding of that value."""
    base = rel_tol * abs(reported.value) if reported.value else rel_tol
    return base + 4 * math.ulp(reported.value)


def _compare_values(
    result: Comparison, values: list[float], reported: ReportedValue, rel_tol: float
) -> Comparison:
    if units_disagree(reported, values):
        result.unit_mismatch = True
        result.detail = f"paper reports {reported.text}, logbook values look like another unit"
        return result
    if len(values) >= 3:
        result.low, result.high = prediction_interval(values)
        allowed = _allowed(reported, rel_tol)
        if (result.high - result.low) / 2 > allowed:
            # Too noisy for the interval (one wild seed widens it until it holds anything): only
            # seeds that agree with each other decide.
            near = sum(abs(v - reported.value) <= allowed for v in values)
            if 0 < near < len(values):
                result.detail = (
                    f"{len(values)} seeds too noisy to decide: the 95 % prediction interval "
                    f"[{result.low:.4g}, {result.high:.4g}] is wider than ±{allowed:.3g} and "
                    f"{near} of them are within it"
                )
                return result
            result.detail = (
                f"every one of {len(values)} seeds is {'within' if near else 'outside'} "
                f"±{allowed:.3g} of the paper's {reported.value:g} (interval too wide to use)"
            )
            result.match = near == len(values) and _same_direction(result, values, reported)
            return result
        mean = statistics.fmean(values)
        in_interval = result.low <= reported.value <= result.high
        # near-identical seeds give a narrow interval: the mean within tolerance also matches
        inside = in_interval or abs(mean - reported.value) <= allowed
        result.detail = (
            f"paper {reported.value:g} {'inside' if in_interval else 'outside'} the 95 % "
            f"prediction interval [{result.low:.4g}, {result.high:.4g}] of {len(values)} seeds, "
            f"mean {mean:.4g} {'within' if abs(mean - reported.value) <= allowed else 'outside'} "
            f"±{allowed:.3g}"
        )
    else:
        mean = statistics.fmean(values)
        allowed = _allowed(reported, rel_tol)
        inside = abs(mean - reported.value) <= allowed
        result.low, result.high = reported.value - allowed, reported.value + allowed
        result.detail = (
            f"measured {mean:.4g} vs paper {reported.value:g} (tolerance ±{allowed:.3g}, "
            f"{len(values)} seed{'s' if len(values) > 1 else ''})"
        )
    result.match = inside and _same_direction(result, values, reported)
    return result


def _same_direction(result: Comparison, values: list[float], reported: ReportedValue) -> bool:
    """For a reported change ("from A to B"), whether the seeds' mean moved the paper's way from
    its baseline (noted in ``result.detail`` when not). Applied on every path to a match, so a
    wider tolerance can never turn a wrong-way change into a match."""
    if reported.baseline is None or reported.baseline == reported.value:
        return True
    mean = statistics.fmean(values)
    same = mean != reported.baseline and (mean > reported.baseline) == (
        reported.value > reported.baseline
    )
    if not same:
        result.detail += f"; the effect goes the wrong way from the baseline {reported.baseline:g}"
    return same


_SIZE = re.compile(r"(?P<num>\d+(?:[.,]\d+)*)\s*(?P<suffix>[KkMBT])?")
_SUFFIX = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}


_POWER = re.compile(
    r"(?:\d+(?:\.\d+)?\s?[x\u00d7*]\s?)?10(?:\^\{?[-+]?\d+\}?|[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+)"
    r"|\d+(?:\.\d+)?[eE][-+]?\d+"
)


def parse_scale_number(text: str) -> float | None:
    """``"350M"`` → 3.5e8, ``"2,000 steps"`` → 2000.0, ``"1.3B"`` → 1.3e9, ``"10⁶ draws"`` →
    1e6 (powers of ten as the number reader reads them); None if no number."""
    power = _POWER.match(text.strip())
    if power is not None:
        return parse_number(power.group(0))
    match = _SIZE.search(text)
    if match is None:
        return None
    number = float(match.group("num").replace(",", ""))
    return number * _SUFFIX.get(match.group("suffix") or "", 1.0)


#: The scale a logbook logs for a claim: metrics ``claims/<id>/scale/<dimension>``.
SCALE_DIMENSIONS = ("parameters", "data", "steps")


def paper_scale(stated: Scale) -> ScaleFigures:
    """The scale a claim states (model size, data size, steps), in numbers."""
    return ScaleFigures(
        parameters=parse_scale_number(stated.model_size) if stated.model_size else None,
        data=parse_scale_number(stated.data_size) if stated.data_size else None,
        steps=parse_scale_number(stated.steps) if stated.steps else None,
    )


def logbook_scale(record: LogbookRecord, claim_id: str) -> ScaleFigures:
    """The scale the logbook says it used for a claim: metrics
    ``claims/<id>/scale/<parameters|data|steps>``."""
    prefix = claim_metric_prefix(claim_id) + "scale/"
    found = {
        m.key[len(prefix) :]: m.value
        for m in record.metrics
        if m.key.startswith(prefix) and m.key[len(prefix) :] in SCALE_DIMENSIONS
    }
    return ScaleFigures.model_validate(found)


def scale_ratio(paper: ScaleFigures, used: ScaleFigures) -> float | None:
    """How many times smaller the logbook's scale is than the paper's (the largest factor over
    parameters, data and steps that both state), or None when nothing is comparable."""
    ratios = [
        p / u
        for p, u in ((paper.parameters, used.parameters), (paper.data, used.data),
                     (paper.steps, used.steps))
        if p and u and u > 0
    ]  # fmt: skip
    return max(ratios) if ratios else None


_ALL = re.compile(
    r"\b(for (?:all|every|any)|any (?:size|horizon|length|number)|arbitrar(?:y|ily)|"
    r"always|uniformly|for every|as \w+ (?:grows|increases|goes to infinity)|asymptotic\w*|"
    r"unbounded|all (?:sizes|horizons|lengths))\b",
    re.IGNORECASE,
)


def is_quantified_over_all(claim_text: str, kind: str) -> bool:
    """Does the claim hold "for all" sizes/horizons? Finite checks then only give ``toy``."""
    return kind == "theory" or bool(_ALL.search(claim_text))


def decide(
    comparison: Comparison,
    *,
    ratio: float | None = None,
    quantified_over_all: bool = False,
    extra_flags: Sequence[Flag] = (),
) -> Decision:
    """The decision table of the module docstring; ``extra_flags`` are added, never decisive."""
    flags: list[Flag] = list(dict.fromkeys(extra_flags))

    def out(verdict: Verdict, rule: str, why: str, *raised: Flag) -> Decision:
        return Decision(
            verdict=verdict,
            rationale=why,
            flags=list(dict.fromkeys([*raised, *flags])),
            rule=rule,
        )

    if not comparison.measured:
        if comparison.run_failed:
            return out("inconclusive", "R1", "the claim's metric came only from failed runs",
                       "run_failed")  # fmt: skip
        if comparison.outside_run:
            return out("inconclusive", "R2", "the claim's metric was logged outside any "
                       "recorded run", "metric_outside_run")  # fmt: skip
        if comparison.downgraded:
            return out("inconclusive", "R2a", "the claim's metric rests only on runs whose "
                       "record is not consistent or that no tool recorded (downgraded to "
                       "testimony; the provenance flags say why)")  # fmt: skip
        return out("inconclusive", "R3", "no checked measurement of the claim's metric")
    if comparison.unit_mismatch:
        return out("inconclusive", "R4", comparison.detail, "unit_mismatch")
    if comparison.match is None:
        return out("inconclusive", "R3", comparison.detail or "nothing comparable")
    if ratio is not None and ratio >= SCALE_FACTOR:
        return out("toy", "R5", f"{comparison.detail}; run at {ratio:.0f}x smaller scale "
                   "than the paper", "reduced_scale")  # fmt: skip
    if not comparison.match:
        return out("falsified", "R6", comparison.detail)
    if quantified_over_all:
        return out("toy", "R7", f"{comparison.detail}; the claim holds for all sizes or "
                   "horizons, a finite check cannot verify it", "finite_horizon")  # fmt: skip
    return out("verified", "R8", comparison.detail)
