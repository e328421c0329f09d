"""Server-side SVG charts: the board and its static export need no JavaScript.

Charts are drawn from numbers and labels only; every label is XML-escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from html import escape

__all__ = ["COLOURS", "bar_chart", "stacked_timeline"]

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


def bar_chart(
    items: Sequence[tuple[str, float]], *, title: str, unit: str = "", width: int = 640
) -> str:
    """Horizontal bars, one per (label, value)."""
    bar, gap, label_w = 22, 8, 260
    height = 34 + len(items) * (bar + gap)
    top = max((v for _, v in items), default=0) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="chart" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="18" font-weight="bold" font-size="14">{escape(title)}</text>',
    ]
    for i, (label, value) in enumerate(items):
        y = 30 + i * (bar + gap)
        w = (width - label_w - 70) * value / top
        colour = COLOURS.get(label, _DEFAULT)
        shown = f"{value:g}{unit}"
        parts.append(
            f'<text x="0" y="{y + 16}" font-size="12">{escape(label)}</text>'
            f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar}" fill="{colour}">'
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
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="chart" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="18" font-weight="bold" font-size="14">{escape(title)}</text>',
        f'<text x="0" y="{top_pad + 10}" font-size="11">{total}</text>',
        f'<line x1="{left}" y1="{top_pad + plot_h}" x2="{width - 10}" y2="{top_pad + plot_h}" '
        'stroke="#999"/>',
    ]
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
            f'<text x="{width - 10}" y="{height - 22}" font-size="11" text-anchor="end">'
            f"{days[-1][0].isoformat()}</text>"
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
