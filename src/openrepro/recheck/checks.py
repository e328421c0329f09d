"""The re-check's code checks: reasons a falsification might be wrong, found in the logged data.

Each check reads one logbook's record, the claim and the judge's verdict, and returns
:class:`Finding` rows. None of them asks a model; the LLM's objections are added beside them
and never replace them.

* **pointer**: every evidence pointer of the verdict is looked up again
  (:func:`openrepro.judge.check_pointer`);
* **normalisation**: the measured and the claimed value differ by a factor that equals a count
  the logbook logged (a metric such as ``batch_size = 50``, or ``--batch-size 50`` /
  ``batch_size=50`` in a run's command or output): per-item vs per-batch timing, per-step vs
  per-epoch, per-device vs total. Divided (or multiplied) by that count, the measured value
  matches the claim within the judge's tolerance;
* **unit**: a factor of 100 (percent vs fraction), 1000 (ms vs s, K vs units), 60 or 3600
  (minutes or hours vs seconds), or the judge's ``unit_mismatch`` flag;
* **scale**: the logbook's scale (``claims/<id>/scale/*`` metrics) is 10x or more below the
  paper's;
* **failed_run** / **partial_run**: the measured values come from a run that exited non-zero, or
  the series stops well before the steps the run was configured for (``--steps N``,
  ``max_steps=N``, ``claims/<id>/scale/steps``);
* **arithmetic**: two logged values whose ratio equals the claimed value (e.g. baseline time /
  method time = the claimed speed-up) while the measured value disagrees: the logbook's own data
  re-derives the claim;
* **testimony**: the prose says falsified while the evidence says otherwise (context only).
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Sequence

from openrepro.claims.records import ClaimView
from openrepro.claims.values import ReportedValue
from openrepro.evidence.decide import (
    DEFAULT_REL_TOL,
    logbook_scale,
    paper_scale,
    scale_ratio,
)
from openrepro.evidence.gather import (
    check_pointer,
    claim_metric_prefix,
    measurements,
)
from openrepro.evidence.records import Pointer, ScaleFigures, describe_pointer
from openrepro.evidence.testimony import testimony_stance
from openrepro.logbooks.records import LogbookRecord, Metric, Run
from openrepro.recheck.records import Finding

__all__ = ["UNIT_FACTORS", "code_checks", "measured_values"]

#: Factors that are a change of unit rather than a different result.
UNIT_FACTORS: tuple[tuple[float, str], ...] = (
    (100.0, "percent vs fraction (x100)"),
    (1000.0, "milli- vs base unit, e.g. ms vs s (x1000)"),
    (60.0, "minutes vs seconds (x60)"),
    (3600.0, "hours vs seconds (x3600)"),
    (1e6, "micro- vs base unit or M vs units (x1e6)"),
)
_COUNT_KEY = re.compile(
    r"(batch|bs\b|size|count|num|n_|trajector|episode|sample|item|rollout|group|chunk|world|"
    r"gpu|device|worker|env|seq|token|image|example)",
    re.IGNORECASE,
)
_COUNT_TEXT = re.compile(
    r"(?P<key>[A-Za-z][\w-]*(?:batch|size|count|num|trajectories|episodes|samples|rollouts|"
    r"envs|workers|gpus|devices)[\w-]*)\s*[=:]?\s*(?P<num>\d+)\b",
    re.IGNORECASE,
)
_STEPS_TEXT = re.compile(
    r"(?:--|\b)(?:max[_-]?steps|total[_-]?steps|num[_-]?steps|steps|iterations|iters)"
    r"\s*[=: ]\s*(?P<num>\d+)\b",
    re.IGNORECASE,
)
_PER = re.compile(r"\bper[ _-]+([A-Za-z]+)", re.IGNORECASE)


def _close(a: float, b: float, tol: float) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=0.0)


def _last_values(record: LogbookRecord) -> dict[tuple[str, str], Metric]:
    last: dict[tuple[str, str], Metric] = {}
    for metric in record.metrics:
        held = last.get((metric.run, metric.key))
        if held is None or metric.step >= held.step:
            last[(metric.run, metric.key)] = metric
    return last


def measured_values(
    record: LogbookRecord, claim: ClaimView, pointers: Sequence[Pointer]
) -> list[tuple[float, Pointer]]:
    """The values the verdict rests on: those at its metric pointers, else the claim's
    measurements from successful recorded runs (the judge's deterministic path)."""
    found: list[tuple[float, Pointer]] = []
    for pointer in pointers:
        if pointer.kind != "metric":
            continue
        for metric in record.metrics:
            if (metric.run, metric.key, metric.step) == (pointer.run, pointer.key, pointer.step):
                found.append((metric.value, pointer))
                break
    if found:
        return found
    return [
        (m.value, m.pointer)
        for m in measurements(record, claim.id)
        if m.run_ok and m.within_run and not m.metric.startswith("scale/")
    ]


def _per_label(claim: ClaimView, pointers: Sequence[Pointer]) -> str:
    match = _PER.search(claim.text) or next(
        (m for p in pointers if (m := _PER.search(p.key.replace("_", " ")))), None
    )
    if match is None:
        for quote in claim.quotes:
            match = _PER.search(quote.text)
            if match:
                break
    return f"per-{match.group(1).lower()}" if match else "per-item"


def _group_label(key: str, count: float) -> str:
    name = key.rsplit("/", 1)[-1].lower()
    for word in ("batch", "epoch", "episode", "trajector", "gpu", "device", "worker", "group"):
        if word in name:
            word = "trajectory" if word == "trajector" else word
            return f"per-{word}-of-{count:g}"
    return f"per-{count:g} ({name})"


def _counts(record: LogbookRecord, claim_prefix: str) -> list[tuple[float, str, str]]:
    """Logged counts: (value, name, where) from metrics and from runs' commands and output."""
    found: list[tuple[float, str, str]] = []
    for metric in _last_values(record).values():
        if metric.key.startswith(claim_prefix) and "/scale/" not in metric.key:
            continue  # the claim's own measurements are not counts
        value = metric.value
        if value >= 2 and float(value).is_integer() and _COUNT_KEY.search(metric.key):
            where = f"metric {metric.key} (run {metric.run}, step {metric.step})"
            found.append((value, metric.key, where))
    for run in record.runs:
        for source, text in (("command", " ".join(run.command)), ("output", run.output)):
            for match in _COUNT_TEXT.finditer(text):
                value = float(match.group("num"))
                if value >= 2:
                    found.append((value, match.group("key"), f"{source} of run {run.id}"))
    return found


def _reported(claim: ClaimView) -> ReportedValue | None:
    return claim.reported[0] if claim.reported else None


def _normalisation_and_units(
    record: LogbookRecord, claim: ClaimView, values: list[tuple[float, Pointer]], tol: float
) -> list[Finding]:
    reported = _reported(claim)
    if reported is None or not values or reported.value == 0:
        return []
    measured = statistics.fmean(v for v, _ in values)
    if measured == 0 or not math.isfinite(measured):
        return []
    claimed = reported.value
    ratio = abs(measured) / abs(claimed)
    if _close(ratio, 1.0, tol):
        return []
    factor = max(ratio, 1 / ratio)
    out: list[Finding] = []
    seen: set[float] = set()
    for count, name, where in _counts(record, claim_metric_prefix(claim.id)):
        if count in seen or not _close(factor, count, tol):
            continue
        seen.add(count)
        per = _per_label(claim, [p for _, p in values])
        group = _group_label(name, count)
        normalised = measured / count if ratio > 1 else measured * count
        op = "divided by" if ratio > 1 else "multiplied by"
        sides = f"{per} vs {group}" if ratio > 1 else f"{group} vs {per}"
        out.append(
            Finding(
                check="normalisation", severity="undermines",
                message=(
                    f"normalisation: {sides}: the measured {measured:g} is {factor:.4g}x the "
                    f"claimed {claimed:g}, and the logbook logs {name} = {count:g} ({where}); "
                    f"{op} it, the measured value is {normalised:.4g}, which matches the claim"
                ),
                data={"measured": measured, "claimed": claimed, "factor": factor,
                      "count": count, "count_key": name, "where": where,
                      "normalised": normalised, "per": per, "group": group},
            )
        )  # fmt: skip
    for unit_factor, label in UNIT_FACTORS:
        if _close(factor, unit_factor, tol):
            out.append(
                Finding(
                    check="unit", severity="undermines",
                    message=(f"unit: {label}: the measured {measured:g} and the claimed "
                             f"{claimed:g} differ by exactly that factor"),
                    data={"measured": measured, "claimed": claimed, "factor": unit_factor},
                )
            )  # fmt: skip
    return out


def _scale(record: LogbookRecord, claim: ClaimView) -> list[Finding]:
    used = logbook_scale(record, claim.id)
    ratio = scale_ratio(paper_scale(claim.scale), used)
    if ratio is not None and ratio >= 10:
        return [
            Finding(check="scale", severity="undermines",
                    message=f"scale: the run is {ratio:.3g}x smaller than the paper's "
                    f"({claim.scale.describe()}): a toy-scale result, not a falsification",
                    data={"ratio": ratio})
        ]  # fmt: skip
    if not claim.scale.is_empty() and used == ScaleFigures():
        return [Finding(check="scale", message="scale: the logbook does not log its scale "
                        f"(the paper used {claim.scale.describe()})")]  # fmt: skip
    return []


def _run_of(record: LogbookRecord, claim: ClaimView, pointer: Pointer) -> Run | None:
    for m in measurements(record, claim.id):
        if m.pointer == pointer and m.run:
            return next((r for r in record.runs if r.id == m.run), None)
    return None


def _runs(
    record: LogbookRecord, claim: ClaimView, values: list[tuple[float, Pointer]]
) -> list[Finding]:
    out: list[Finding] = []
    failed = [r for r in record.runs if r.exit_code not in (0, None)]
    used_runs = {run.id for _, p in values if (run := _run_of(record, claim, p)) is not None}
    for run in failed:
        severity = "undermines" if run.id in used_runs else "info"
        out.append(
            Finding(check="failed_run", severity=severity,
                    message=f"failed run: run {run.id} ({' '.join(run.command)[:80]}) exited "
                    f"with code {run.exit_code}"
                    + ("; the measured value comes from it" if severity == "undermines" else ""),
                    data={"run": run.id, "exit_code": run.exit_code})
        )  # fmt: skip
    # partial runs: the measured series stops before the configured number of steps
    configured: list[tuple[float, str]] = []
    steps_key = claim_metric_prefix(claim.id) + "scale/steps"
    configured += [(m.value, f"metric {m.key}") for m in record.metrics if m.key == steps_key]
    for run in record.runs:
        for text in (" ".join(run.command), run.output):
            configured += [(float(x.group("num")), f"run {run.id}") for x in
                           _STEPS_TEXT.finditer(text)]  # fmt: skip
    if configured and values:
        steps = {
            m.step for m in record.metrics for _, p in values if (m.run, m.key) == (p.run, p.key)
        }
        logged = max(steps) + 1 if steps else 0
        want, where = max(configured)
        if len(steps) > 1 and logged < 0.9 * want:
            out.append(
                Finding(check="partial_run", severity="undermines",
                        message=f"partial run: the measured series has {logged} steps of the "
                        f"{want:g} configured ({where})",
                        data={"logged_steps": logged, "configured_steps": want})
            )  # fmt: skip
    return out


def _arithmetic(
    record: LogbookRecord, claim: ClaimView, values: list[tuple[float, Pointer]], tol: float
) -> list[Finding]:
    reported = _reported(claim)
    if reported is None or reported.value in (0, 1) or not values:
        return []
    measured = statistics.fmean(v for v, _ in values)
    if _close(measured, reported.value, tol):
        return []
    last = [m for m in _last_values(record).values() if m.value and math.isfinite(m.value)][:60]
    for a in last:
        for b in last:
            if a is b or a.run != b.run:
                continue
            ratio = a.value / b.value
            if _close(ratio, reported.value, tol) and not _close(ratio, measured, tol):
                return [
                    Finding(check="arithmetic", severity="undermines",
                            message=f"arithmetic: the logged {a.key} / {b.key} = "
                            f"{a.value:g} / {b.value:g} = {ratio:.4g} matches the claimed "
                            f"{reported.value:g}; the measured {measured:g} was derived "
                            "differently",
                            data={"numerator": a.key, "denominator": b.key, "ratio": ratio})
                ]  # fmt: skip
    return []


def code_checks(
    record: LogbookRecord,
    claim: ClaimView,
    *,
    pointers: Sequence[Pointer],
    verdict: str,
    flags: Sequence[str],
    rel_tol: float = DEFAULT_REL_TOL,
) -> list[Finding]:
    """Every code check (see the module docstring) on one logbook's verdict on ``claim``."""
    findings: list[Finding] = []
    bad = [p for p in pointers if not check_pointer(record, p)]
    for pointer in bad:
        findings.append(Finding(check="pointer", severity="undermines",
                                message=f"pointer: {describe_pointer(pointer)} is not in the "
                                "logbook"))  # fmt: skip
    if pointers and not bad:
        findings.append(Finding(check="pointer", severity="supports",
                                message=f"pointer: all {len(pointers)} evidence pointers "
                                "re-checked"))  # fmt: skip
    tolerance = rel_tol
    reported = _reported(claim)
    if reported is not None and reported.rel_tol is not None:
        tolerance = reported.rel_tol
    values = measured_values(record, claim, pointers)
    findings += _normalisation_and_units(record, claim, values, tolerance)
    if "unit_mismatch" in flags and not any(f.check == "unit" for f in findings):
        findings.append(Finding(check="unit", severity="undermines",
                                message="unit: the judge flagged a unit mismatch between the "
                                "paper's value and the logged ones"))  # fmt: skip
    findings += _scale(record, claim)
    findings += _runs(record, claim, values)
    if not any(f.check == "normalisation" for f in findings):  # the same ratio, said once
        findings += _arithmetic(record, claim, values, tolerance)
    stance = testimony_stance(record, claim)
    if stance == "negative" and verdict != "falsified":
        findings.append(Finding(check="testimony", message=f"testimony: the prose says "
                                f"falsified, the evidence gave {verdict}"))  # fmt: skip
    elif stance == "positive" and verdict == "falsified":
        findings.append(Finding(check="testimony", message="testimony: the prose says "
                                "verified, the evidence gave falsified"))  # fmt: skip
    return findings
