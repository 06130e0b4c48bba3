"""The bench report three ways: a rich table, a JSON document and an SVG plot (plain text, no
plotting library): median ms per point, one bar per assignor on a log scale, Java's figure as a tick."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

from rich.table import Table

from .runner import Measurement, Timing

FORMAT = "kgspec-bench/1"
COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f")


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def table(results: Sequence[Measurement]) -> Table:
    out = Table(title="kgspec bench: CPU ms per call (median, p10-p90) and quality")
    for name, justify in (("point", "left"), ("assignor", "left"), ("median ms", "right"), ("p10-p90", "right"),
                          ("calls", "right"), ("x first", "right"), ("x Java", "right"), ("valid", "center"),
                          ("balance", "right"), ("moved", "right"), ("rack-local", "right")):
        out.add_column(name, justify=justify)  # type: ignore[arg-type]
    for m in results:
        q = m.quality
        median = m.median_ms
        java = m.java_ms
        valid = "ERROR" if m.error else ("yes" if q and q.valid else f"NO ({q.problem_count if q else '?'})")
        balance = "-" if q is None else (str(q.balance) if q.balance_all is None else f"{q.balance}/{q.balance_all}")
        out.add_row(
            m.point.label, m.assignor, _ms(median),
            f"{_ms(m.quantile_ms(0.1))}-{_ms(m.quantile_ms(0.9))}" if m.times_ms else "-",
            str(len(m.times_ms)),
            "-" if m.baseline_ratio is None else f"{m.baseline_ratio:.2f}",
            "-" if java is None or median is None else f"{median / java:.1f}",
            valid, balance,
            "-" if q is None or q.moved is None else str(q.moved),
            "-" if q is None or q.rack_local is None else f"{q.rack_local:.0%}",
        )
    return out


def problems_text(results: Sequence[Measurement]) -> list[str]:
    """One line per failed or invalid measurement, with its first problems."""
    lines: list[str] = []
    for m in results:
        if m.error:
            lines.append(f"{m.point.label} / {m.assignor}: {m.error}")
        elif m.quality is not None and not m.quality.valid:
            lines.append(f"{m.point.label} / {m.assignor}: {m.quality.problem_count} problem(s), e.g. "
                         + "; ".join(m.quality.problems[:2]))
    return lines


def document(results: Sequence[Measurement], timing: Timing, assignors: Sequence[str],
             grid: str | None) -> dict[str, Any]:
    return {"format": FORMAT, "grid": grid, "assignors": list(assignors),
            "timing": {"clock": "process_time", "warmup": timing.warmup, "calls": timing.calls,
                       "maxSeconds": timing.max_seconds, "minCalls": timing.min_calls},
            "results": [m.to_json() for m in results]}


def svg(results: Sequence[Measurement], assignors: Sequence[str], title: str = "kgspec bench") -> str:
    """Grouped bars: x = points, one bar per assignor, y = median ms on a log10 axis."""
    labels = list(dict.fromkeys(m.point.label for m in results))
    names = [a for a in assignors if any(m.assignor == a for m in results)]
    values = [v for m in results for v in (m.median_ms, m.java_ms) if v]
    lo = math.floor(math.log10(min(values))) if values else -2
    hi = math.ceil(math.log10(max(values))) if values else 1
    hi = max(hi, lo + 1)
    bar, gap, left, top, plot_h, bottom = 14, 18, 70, 50, 300, 190
    group_w = max(1, len(names)) * bar + gap
    width = max(640, left + len(labels) * group_w + 40)
    height = top + plot_h + bottom

    def y(ms: float) -> float:
        return top + plot_h * (1 - (math.log10(ms) - lo) / (hi - lo))

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="11">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{left}" y="20" font-size="14">{escape(title)}: median CPU ms per call (log scale); '
             'black tick: Kafka (Java)</text>']
    for exp in range(lo, hi + 1):
        yy = y(10.0 ** exp)
        parts.append(f'<line x1="{left}" x2="{width - 20}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{10.0 ** exp:g}</text>')
    parts.append(f'<text x="16" y="{top + plot_h / 2}" transform="rotate(-90 16 {top + plot_h / 2})" '
                 'text-anchor="middle">ms</text>')
    by_key = {(m.point.label, m.assignor): m for m in results}
    for gi, label in enumerate(labels):
        x0 = left + gi * group_w + gap / 2
        for ai, name in enumerate(names):
            m = by_key.get((label, name))
            if m is None or m.median_ms is None:
                continue
            yy = y(m.median_ms)
            colour = COLOURS[ai % len(COLOURS)]
            stroke = "" if m.ok else ' stroke="red" stroke-width="2"'
            parts.append(f'<rect x="{x0 + ai * bar:.1f}" y="{yy:.1f}" width="{bar - 2}" '
                         f'height="{top + plot_h - yy:.1f}" fill="{colour}"{stroke}>'
                         f'<title>{escape(label)} / {escape(name)}: {m.median_ms:.3f} ms</title></rect>')
            if m.java_ms:
                jy = y(m.java_ms)
                parts.append(f'<line x1="{x0 + ai * bar - 1:.1f}" x2="{x0 + ai * bar + bar - 1:.1f}" '
                             f'y1="{jy:.1f}" y2="{jy:.1f}" stroke="black" stroke-width="2">'
                             f'<title>Kafka {escape(name)}: {m.java_ms} ms</title></line>')
        cx = x0 + len(names) * bar / 2
        ly = top + plot_h + 10
        parts.append(f'<text x="{cx:.1f}" y="{ly}" transform="rotate(45 {cx:.1f} {ly})">{escape(label)}</text>')
    for ai, name in enumerate(names):
        lx = left + ai * 150
        parts.append(f'<rect x="{lx}" y="30" width="10" height="10" fill="{COLOURS[ai % len(COLOURS)]}"/>')
        parts.append(f'<text x="{lx + 14}" y="39">{escape(name)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
