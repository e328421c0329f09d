"""Agreement formulas against textbook examples."""

from __future__ import annotations

import pytest

from openrepro.evidence import cohen_kappa, krippendorff_alpha, percent_agreement


def test_cohen_kappa_wikipedia_example() -> None:
    # 50 proposals, two readers: yes/yes 20, yes/no 5, no/yes 10, no/no 15: p_o .7, p_e .5
    pairs = [("y", "y")] * 20 + [("y", "n")] * 5 + [("n", "y")] * 10 + [("n", "n")] * 15
    assert percent_agreement(pairs) == pytest.approx(0.7)
    assert cohen_kappa(pairs) == pytest.approx(0.4)
    assert cohen_kappa([("a", "a"), ("b", "b")]) == pytest.approx(1.0)
    assert cohen_kappa([]) is None


def test_krippendorff_alpha_examples_from_krippendorff_2011() -> None:
    # "Computing Krippendorff's alpha-reliability", binary data, two observers: alpha = 0.095
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    units = {n: [x, y] for n, (x, y) in enumerate(zip(a, b, strict=True))}
    assert krippendorff_alpha(units) == pytest.approx(0.095, abs=5e-4)
    # nominal data, four observers, missing values: alpha = 0.743
    table = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    ]
    units = {u: [row[u] for row in table] for u in range(12)}
    assert krippendorff_alpha(units) == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha({1: ["x", "x"], 2: ["x", "x"]}) == 1.0
    assert krippendorff_alpha({1: ["x", None]}) is None
