"""Binding a claim's check to evidence: which measured values each of its quantities gets.

Each quantity of a check is bound, by code, to the measurements a logbook logged under its exact
key ``claims/<claim id>/<quantity>`` (:func:`~openrepro.evidence.gather.measurements`: per
Trackio run the last step, tied to its recorded run). Only measurements that count are bound:
logged during a recorded run that succeeded, from a run whose provenance is above testimony.

* A plain quantity gets one value per run (a seed).
* A swept quantity (``sweep`` set on the quantity or on the check node that uses it) gets one
  point per run: ``(x, y)`` with ``x`` the run's value of the sweep metric
  (:func:`~openrepro.claims.checks.sweep_metric`, e.g. ``claims/<id>/k``) and ``y`` the
  quantity's. A run that did not log its ``x`` gives no point.

When a check has a single quantity and the logbook logged a single metric for the claim (other
than its scale and sweep metrics), that metric is bound to it whatever its name: the binding is
unambiguous (``claims/p1/C1/accuracy`` for a check whose one quantity the drafter called
``subject``). Anything less clear-cut binds nothing.

Every bound value carries its pointer (metric key, run, step), which the verdict records.
"""

from __future__ import annotations

from collections.abc import Sequence

from openrepro.claims.checks import Check, sweep_metric, sweeps_of
from openrepro.evidence.records import Measurement, describe_pointer
from openrepro.evidence.relations import Bound

__all__ = ["bind_check"]


def bind_check(
    check: Check, usable: Sequence[Measurement]
) -> tuple[list[Bound], list[Measurement]]:
    """The :class:`Bound` of every quantity of ``check`` that ``usable`` measurements bind (see
    the module docstring), and the measurements bound (the verdict rests on them and takes their
    provenance); a quantity nothing binds is left out (the evaluation says so)."""
    sweeps = sweeps_of(check)
    by_metric: dict[str, list[Measurement]] = {}
    for m in usable:
        by_metric.setdefault(m.metric, []).append(m)
    quantities = check.all_quantities()
    others = set(by_metric) - {sweep_metric(s) for s in sweeps.values()}
    if len(quantities) == 1 and quantities[0].name not in by_metric and len(others) == 1:
        by_metric[quantities[0].name] = by_metric[others.pop()]  # the one unambiguous binding
    out: list[Bound] = []
    used: list[Measurement] = []
    for quantity in quantities:
        found = by_metric.get(quantity.name, [])
        if not found:
            continue
        sweep = sweeps.get(quantity.name)
        if sweep is None:
            out.append(
                Bound(quantity=quantity.name, seeds=[m.value for m in found],
                      pointers=[describe_pointer(m.pointer) for m in found])
            )  # fmt: skip
            used += found
            continue
        xs = {m.seed: m for m in by_metric.get(sweep_metric(sweep), [])}
        points = [(xs[m.seed].value, m.value) for m in found if m.seed in xs]
        pointers = [
            f"{describe_pointer(m.pointer)} at {describe_pointer(xs[m.seed].pointer)}"
            for m in found
            if m.seed in xs
        ]
        if points:
            out.append(Bound(quantity=quantity.name, points=points, pointers=pointers))
            used += [m for m in found if m.seed in xs] + [xs[m.seed] for m in found if m.seed in xs]
    return out, list({id(m): m for m in used}.values())
