"""Server-side SVG charts: the board and its static export need no JavaScript.

Charts are drawn from numbers and labels only; every label is XML-escaped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date
from html import escape

__all__ = ["COLOURS", "bar_chart", "seeds_chart", "stacked_timeline", "sweep_chart"]

COLOURS = {
    "verified": "#2e7d32",
    "falsified": "#c62828",
    "contested": "#ef6c00",
    "toy": "#6a1b9a",
    "toy-only": "#6a1b9a",
    "inconclusive": "#757575",
    "unattempted": "#bdbdbd",
}
_DEFAULT = "#1565c0"


def _svg_head(width: int, height: int, title: str, words: list[str] | None = None) -> list[str]:
    """The opening of a chart: the ``svg`` element and its title; with ``words``, a check
    chart, whose numbers are also told in a ``desc`` (its text alternative)."""
    css = "chart" if words is None else "chart check-chart"
    desc = "" if words is None else f"<desc>{escape('; '.join(words))}</desc>"
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="{css}" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}">',
        f"<title>{escape(title)}</title>{desc}",
    ]


#: Bars switch to a logarithmic scale when the largest value is this many times the smallest
#: non-zero one (1 falsified paper beside 3,339 others would be invisible on a linear axis).
LOG_RATIO = 50
MIN_BAR = 2.0  # px: a non-zero value is always seen


def bar_chart(
    items: Sequence[tuple[str, float]], *, title: str, unit: str = "", width: int = 640
) -> str:
    """Horizontal bars, one per (label, value), each with its value written beside it; on a
    logarithmic scale (said under the title) when the values span more than
    :data:`LOG_RATIO` times."""
    bar, gap, label_w = 22, 8, 260
    height = 34 + len(items) * (bar + gap) + 12
    top = max((v for _, v in items), default=0) or 1
    low = min((v for _, v in items if v > 0), default=top)
    log = top / low > LOG_RATIO
    span = width - label_w - 70

    def length(value: float) -> float:
        if value <= 0:
            return 0.0
        share = math.log10(1 + value) / math.log10(1 + top) if log else value / top
        return max(span * share, MIN_BAR)

    parts = [
        *_svg_head(width, height, title),
        f'<text x="0" y="18" font-weight="bold" font-size="14">{escape(title)}</text>',
    ]
    if log:
        parts.append(f'<text class="scale" x="{width}" y="18" font-size="11" text-anchor="end" '
                     'data-scale="log">logarithmic scale</text>')  # fmt: skip
    for i, (label, value) in enumerate(items):
        y = 30 + i * (bar + gap)
        w = length(value)
        colour = COLOURS.get(label, _DEFAULT)
        shown = f"{value:g}{unit}"
        parts.append(
            f'<text x="0" y="{y + 16}" font-size="12">{escape(label)}</text>'
            f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar}" fill="{colour}" '
            f'data-value="{value:g}">'
            f"<title>{escape(label)}: {escape(shown)}</title></rect>"
            f'<text x="{label_w + w + 6:.1f}" y="{y + 16}" font-size="12">{escape(shown)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def stacked_timeline(
    days: Sequence[tuple[date, dict[str, int]]],
    *,
    title: str,
    keys: Sequence[str] = ("verified", "falsified", "toy", "inconclusive"),
    width: int = 640,
    height: int = 220,
) -> str:
    """Stacked columns per day (e.g. verdicts per day by value), with a legend."""
    left, bottom, top_pad = 40, 40, 30
    plot_w, plot_h = width - left - 10, height - bottom - top_pad
    total = max((sum(c.get(k, 0) for k in keys) for _, c in days), default=0) or 1
    col = plot_w / max(len(days), 1)
    parts = [
        *_svg_head(width, height, title),
        f'<text x="0" y="18" font-weight="bold" font-size="14">{escape(title)}</text>',
        f'<text x="0" y="{top_pad + 10}" font-size="11">{total}</text>',
        f'<line x1="{left}" y1="{top_pad + plot_h}" x2="{width - 10}" y2="{top_pad + plot_h}" '
        'stroke="#999"/>',
    ]
    if len(days) == 1:  # one day: a dot per value at its count, not a block across the chart
        day, counts = days[0]
        x = left + plot_w / 2
        for key in keys:
            n = counts.get(key, 0)
            if not n:
                continue
            cy = top_pad + plot_h - plot_h * n / total
            parts.append(
                f'<circle class="day" cx="{x:.1f}" cy="{cy:.1f}" r="5" '
                f'fill="{COLOURS.get(key, _DEFAULT)}" data-value="{n}">'
                f"<title>{day.isoformat()} {escape(key)}: {n}</title></circle>"
                f'<text x="{x + 9:.1f}" y="{cy + 4:.1f}" font-size="11">{n}</text>'
            )
        days = []  # drawn
        parts.append(
            f'<text x="{x:.1f}" y="{height - 22}" font-size="11" text-anchor="middle">'
            f"{day.isoformat()}</text>"
        )
    col = min(col, 24.0)  # a few days are narrow columns, not wide blocks
    for i, (day, counts) in enumerate(days):
        x = left + i * col
        y: float = top_pad + plot_h
        for key in keys:
            n = counts.get(key, 0)
            if not n:
                continue
            h = plot_h * n / total
            y -= h
            parts.append(
                f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{max(col - 2, 1):.1f}" '
                f'height="{h:.1f}" fill="{COLOURS.get(key, _DEFAULT)}">'
                f"<title>{day.isoformat()} {escape(key)}: {n}</title></rect>"
            )
    if days:
        parts.append(
            f'<text x="{left}" y="{height - 22}" font-size="11">{days[0][0].isoformat()}</text>'
            f'<text x="{max(left + len(days) * col, left + 150):.1f}" y="{height - 22}" '
            f'font-size="11" text-anchor="end">{days[-1][0].isoformat()}</text>'
        )
    for j, key in enumerate(keys):
        x = left + j * 130
        parts.append(
            f'<rect x="{x}" y="{height - 12}" width="10" height="10" '
            f'fill="{COLOURS.get(key, _DEFAULT)}"/>'
            f'<text x="{x + 14}" y="{height - 3}" font-size="11">{escape(key)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _axis(low: float, high: float) -> tuple[float, float]:
    """A view range holding ``[low, high]`` with some room either side (a point gets room too)."""
    span = high - low
    pad = span * 0.08 if span > 0 else (abs(low) * 0.05 or 1.0)
    return low - pad, high + pad


def _finite(values: Sequence[float | None]) -> list[float]:
    return [v for v in values if v is not None and math.isfinite(v)]


def seeds_chart(
    rows: Sequence[tuple[str, Sequence[float]]],
    *,
    title: str,
    reference: float | None = None,
    reference_label: str = "paper",
    interval: tuple[float, float] | None = None,
    region: tuple[float | None, float | None] | None = None,
    width: int = 520,
) -> str:
    """One value axis; a row of dots per quantity (one dot per seed), the paper's value or bound
    as a vertical line, the interval used as a bar under the first row, the claimed region shaded.

    Every drawn number is also in a ``data-`` attribute and a ``<title>``, and the chart's
    ``<desc>`` says it in words (the text alternative)."""
    left, right, top, row_h = 130, 20, 26, 26
    rows = [(label, _finite(list(values))) for label, values in rows]
    extra = 18 if interval is not None else 0
    height = top + len(rows) * row_h + extra + 28
    region_lo, region_hi = region if region is not None else (None, None)
    seen = [v for _, values in rows for v in values]
    seen += _finite([reference, *(interval or ()), region_lo, region_hi])
    lo, hi = _axis(min(seen, default=0.0), max(seen, default=1.0))
    plot_w = width - left - right

    def sx(value: float) -> float:
        return left + plot_w * (min(max(value, lo), hi) - lo) / (hi - lo)

    bottom = top + len(rows) * row_h + extra
    words = [
        f"{label}: {', '.join(f'{v:.4g}' for v in values) or 'no value'}" for label, values in rows
    ]
    if reference is not None:
        words.append(f"{reference_label}: {reference:.4g}")
    if interval is not None:
        words.append(f"interval used: [{interval[0]:.4g}, {interval[1]:.4g}]")
    parts = [
        *_svg_head(width, height, title, words),
    ]
    if region is not None and (region_lo is not None or region_hi is not None):
        x0 = sx(region_lo) if region_lo is not None else left
        x1 = sx(region_hi) if region_hi is not None else left + plot_w
        parts.append(
            f'<rect class="region" x="{x0:.1f}" y="{top - 6}" width="{max(x1 - x0, 1):.1f}" '
            f'height="{bottom - top + 6}" fill="#e8f5e9" '
            f'data-low="{"" if region_lo is None else f"{region_lo:g}"}" '
            f'data-high="{"" if region_hi is None else f"{region_hi:g}"}">'
            "<title>claimed region</title></rect>"
        )
    parts.append(
        f'<line x1="{left}" y1="{bottom}" x2="{left + plot_w}" y2="{bottom}" stroke="#999"/>'
        f'<text x="{left}" y="{bottom + 14}" font-size="11">{lo:.4g}</text>'
        f'<text x="{left + plot_w}" y="{bottom + 14}" font-size="11" text-anchor="end">'
        f"{hi:.4g}</text>"
    )
    for i, (label, values) in enumerate(rows):
        y = top + i * row_h + row_h / 2
        parts.append(f'<text x="0" y="{y + 4:.1f}" font-size="12">{escape(label[:20])}</text>')
        for j, value in enumerate(values):
            parts.append(
                f'<circle class="seed" cx="{sx(value):.1f}" cy="{y:.1f}" r="4" fill="{_DEFAULT}" '
                f'fill-opacity="0.75" data-quantity="{escape(label)}" data-value="{value:g}">'
                f"<title>{escape(label)} seed {j + 1}: {value:.6g}</title></circle>"
            )
    if interval is not None:
        y = top + len(rows) * row_h + 6
        x0, x1 = sx(interval[0]), sx(interval[1])
        parts.append(
            f'<line class="interval" x1="{x0:.1f}" y1="{y}" x2="{x1:.1f}" y2="{y}" stroke="#000" '
            f'stroke-width="3" data-low="{interval[0]:g}" data-high="{interval[1]:g}">'
            f"<title>interval used: [{interval[0]:.4g}, {interval[1]:.4g}]</title></line>"
            f'<line x1="{x0:.1f}" y1="{y - 4}" x2="{x0:.1f}" y2="{y + 4}" stroke="#000"/>'
            f'<line x1="{x1:.1f}" y1="{y - 4}" x2="{x1:.1f}" y2="{y + 4}" stroke="#000"/>'
            f'<text x="0" y="{y + 4}" font-size="11">interval</text>'
        )
    if reference is not None:
        x = sx(reference)
        parts.append(
            f'<line class="reference" x1="{x:.1f}" y1="{top - 8}" x2="{x:.1f}" y2="{bottom}" '
            f'stroke="{COLOURS["falsified"]}" stroke-width="2" stroke-dasharray="4 3" '
            f'data-value="{reference:g}"><title>{escape(reference_label)}: {reference:.6g}</title>'
            f'</line><text x="{x:.1f}" y="{top - 10}" font-size="11" text-anchor="middle">'
            f"{escape(reference_label)} {reference:.4g}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def sweep_chart(
    points: Sequence[tuple[float | str, float]],
    *,
    title: str,
    x_label: str = "x",
    line: tuple[float, float] | None = None,
    reference: float | None = None,
    reference_label: str = "paper",
    width: int = 520,
    height: int = 220,
) -> str:
    """Points ``(x, y)`` of a sweep (one per seed and x), the fitted line ``y = a + b x``
    (``line=(a, b)``) and the paper's value or bound as a horizontal line. Non-numeric x values
    are spread evenly in the order first seen."""
    left, right, top, bottom = 56, 16, 16, 36
    plot_w, plot_h = width - left - right, height - top - bottom
    shown = [(x, y) for x, y in points if math.isfinite(y)]
    numeric = all(isinstance(x, int | float) for x, _ in shown)
    order: dict[float | str, float] = {}
    for x, _ in shown:
        order.setdefault(x, float(x) if numeric else float(len(order)))
    xs = list(order.values())
    x0, x1 = _axis(min(xs, default=0.0), max(xs, default=1.0))
    ys = [y for _, y in shown] + _finite([reference])
    if line is not None and xs:
        ys += [line[0] + line[1] * min(xs), line[0] + line[1] * max(xs)]
    y0, y1 = _axis(min(ys, default=0.0), max(ys, default=1.0))

    def sx(x: float) -> float:
        return left + plot_w * (x - x0) / (x1 - x0)

    def sy(y: float) -> float:
        return top + plot_h - plot_h * (min(max(y, y0), y1) - y0) / (y1 - y0)

    words = [f"{x_label}={x}: {y:.4g}" for x, y in shown] or ["no point"]
    if line is not None:
        words.append(f"least-squares line: y = {line[0]:.4g} + {line[1]:.4g} x")
    if reference is not None:
        words.append(f"{reference_label}: {reference:.4g}")
    parts = [
        *_svg_head(width, height, title, words),
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fafafa" '
        'stroke="#ccc"/>',
        f'<text x="{left - 4}" y="{top + 10}" font-size="11" text-anchor="end">{y1:.4g}</text>'
        f'<text x="{left - 4}" y="{top + plot_h}" font-size="11" text-anchor="end">{y0:.4g}</text>'
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" font-size="11" '
        f'text-anchor="middle">{escape(x_label)}</text>',
    ]
    for x, value in order.items():
        parts.append(
            f'<text x="{sx(value):.1f}" y="{top + plot_h + 14}" font-size="10" '
            f'text-anchor="middle">{escape(str(x))}</text>'
        )
    if line is not None and xs:
        a, b = line
        lo, hi = min(xs), max(xs)
        parts.append(
            f'<line class="fit" x1="{sx(lo):.1f}" y1="{sy(a + b * lo):.1f}" x2="{sx(hi):.1f}" '
            f'y2="{sy(a + b * hi):.1f}" stroke="{COLOURS["contested"]}" stroke-width="2" '
            f'data-intercept="{a:g}" data-slope="{b:g}"><title>least-squares line</title></line>'
        )
    if reference is not None:
        y = sy(reference)
        parts.append(
            f'<line class="reference" x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" '
            f'stroke="{COLOURS["falsified"]}" stroke-dasharray="4 3" data-value="{reference:g}">'
            f"<title>{escape(reference_label)}: {reference:.6g}</title></line>"
        )
    for x, y in shown:
        parts.append(
            f'<circle class="point" cx="{sx(order[x]):.1f}" cy="{sy(y):.1f}" r="4" '
            f'fill="{_DEFAULT}" data-x="{escape(str(x))}" data-value="{y:g}">'
            f"<title>{escape(x_label)}={escape(str(x))}: {y:.6g}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)
