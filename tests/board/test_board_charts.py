"""The board's charts stay readable at one verdict and at event scale."""

from __future__ import annotations

import re
from datetime import date, timedelta

from openrepro.board.charts import bar_chart, stacked_timeline


def _bars(svg: str) -> dict[str, float]:
    return {
        value: float(width)
        for width, value in re.findall(
            r'<rect x="\d+" y="\d+" width="([\d.]+)" height="22" '
            r'fill="[^"]+" data-value="([^"]+)"',
            svg,
        )
    }


def test_one_paper_beside_thousands_is_seen() -> None:
    svg = bar_chart([("falsified", 1), ("nothing established", 3339)], title="Papers")
    bars = _bars(svg)
    assert 'data-scale="log"' in svg  # and said so
    assert bars["1"] >= 20 and bars["3339"] > bars["1"] * 3


def test_close_values_keep_a_linear_scale() -> None:
    svg = bar_chart([("a", 10), ("b", 20), ("c", 0)], title="Papers")
    bars = _bars(svg)
    assert 'data-scale="log"' not in svg
    assert abs(bars["20"] - 2 * bars["10"]) < 0.2 and bars["0"] == 0


def test_one_day_is_dots_not_a_block() -> None:
    svg = stacked_timeline([(date(2026, 7, 1), {"verified": 1})], title="Verdicts over time")
    assert len(re.findall(r'<circle class="day"[^>]*data-value="1"', svg)) == 1
    assert not re.search(r'<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="[\d.]+" '
                         r'fill="#2e7d32"><title>', svg)  # fmt: skip
    assert "2026-07-01" in svg


def test_a_few_days_are_narrow_columns_and_many_fit() -> None:
    start = date(2026, 7, 1)
    few = stacked_timeline([(start + timedelta(days=i), {"verified": 3}) for i in range(3)],
                           title="t")  # fmt: skip
    columns = r'width="([\d.]+)" height="[\d.]+" fill="#2e7d32"><title>'
    widths = [float(w) for w in re.findall(columns, few)]
    assert len(widths) == 3 and max(widths) <= 24
    many = stacked_timeline(
        [(start + timedelta(days=i), {"verified": 500 + i, "falsified": 80}) for i in range(60)],
        title="t",
    )
    assert len(re.findall(r"<title>2026-", many)) == 120 and "2026-08-29" in many
