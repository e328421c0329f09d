"""Agreement statistics for human review answers (nominal labels).

* :func:`cohen_kappa`: two raters, the same units: ``κ = (p_o - p_e) / (1 - p_e)`` with ``p_o``
  the observed agreement and ``p_e = Σ_k p_1(k) p_2(k)`` the chance agreement from each rater's
  own label frequencies (Cohen 1960).
* :func:`krippendorff_alpha`: any number of raters, missing answers allowed, nominal distance:
  ``alpha = 1 - D_o / D_e`` computed from the coincidence matrix ``o_ck = Σ_u Σ_{i≠j} [c_i=c, c_j=k]
  / (m_u - 1)`` over units with at least two answers: ``D_o = Σ_{c≠k} o_ck / n`` and
  ``D_e = Σ_{c≠k} n_c n_k / (n (n - 1))`` (Krippendorff 2011, "Computing Krippendorff's
  alpha-reliability").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

__all__ = ["cohen_kappa", "krippendorff_alpha", "percent_agreement"]


def percent_agreement(pairs: Sequence[tuple[Hashable, Hashable]]) -> float | None:
    if not pairs:
        return None
    return sum(a == b for a, b in pairs) / len(pairs)


def cohen_kappa(pairs: Sequence[tuple[Hashable, Hashable]]) -> float | None:
    """Cohen's κ of two raters from their (rater 1, rater 2) labels on the same units; None
    without units, 1.0 when both always give the same single label (no chance to disagree)."""
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(a == b for a, b in pairs) / n
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    expected = sum(first[k] * second.get(k, 0) for k in first) / (n * n)
    if expected == 1.0:
        return 1.0
    return (observed - expected) / (1 - expected)


def krippendorff_alpha(units: Mapping[Any, Sequence[Hashable | None]]) -> float | None:
    """Krippendorff's alpha (nominal) from ``unit -> the raters' labels`` (None: no answer); None
    when fewer than two pairable answers exist, 1.0 when every pairable answer is the same."""
    coincidence: dict[tuple[Hashable, Hashable], float] = {}
    for labels in units.values():
        values = [v for v in labels if v is not None]
        m = len(values)
        if m < 2:
            continue
        for i, a in enumerate(values):
            for j, b in enumerate(values):
                if i != j:
                    coincidence[(a, b)] = coincidence.get((a, b), 0.0) + 1 / (m - 1)
    n = sum(coincidence.values())
    if n <= 1:
        return None
    totals: dict[Hashable, float] = {}
    for (a, _), count in coincidence.items():
        totals[a] = totals.get(a, 0.0) + count
    observed = sum(count for (a, b), count in coincidence.items() if a != b) / n
    expected = sum(totals[a] * totals[b] for a in totals for b in totals if a != b) / (n * (n - 1))
    if expected == 0:
        return 1.0
    return 1 - observed / expected
