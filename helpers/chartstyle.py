"""How the course's charts read, in one place (:mod:`helpers.plots` draws through it):

- every series of an axes has a colour of its own (:func:`palette`: the Okabe-Ito colours, then
  tab20, then a colormap, never a cycle that repeats) and, past eight, a marker of its own too;
- tick labels are plain numbers in the axis's unit: no offset, no powers of ten, on a log axis too
  (:func:`plain_axes`); counts of elements and bytes in K, M, G (powers of 1024) and KiB, MiB, GiB;
- times in the unit that fits them (:func:`time_unit`: s, ms or µs);
- legends outside the axes, where they cover no data (:func:`legend_outside`, :func:`legend_below`);
- devices whose values differ more than tenfold never share a linear axis (:func:`tenfold`): the
  chart gives each its own panel or draws a log axis, and says so;
- two timings compared show their spread, and say when a difference lies within it
  (:func:`within_spread`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from matplotlib import colormaps, ticker

OKABE_ITO = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#000000",
             "#f0e442"]
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p")
TENFOLD = 10.0


def palette(n: int) -> list:
    """``n`` colours, all different: the colour-blind-safe Okabe-Ito set up to eight, tab20 up to
    twenty (its dark shades first), else ``n`` points of the turbo colormap."""
    if n <= len(OKABE_ITO):
        return OKABE_ITO[:n]
    if n <= 20:
        tab = list(colormaps["tab20"].colors)
        return (tab[0::2] + tab[1::2])[:n]
    return [colormaps["turbo"](x) for x in [(k + 0.5) / n for k in range(n)]]


def markers(n: int) -> list[str]:
    """A marker for each of ``n`` series: all circles up to eight (the colours tell them apart),
    then one marker each as well."""
    return ["o"] * n if n <= len(OKABE_ITO) else [MARKERS[k % len(MARKERS)] for k in range(n)]


def plain_number(v: float, pos=None) -> str:
    """A tick value as a plain number: 0.001, 0.25, 40, 1,200, never 1e-3 or 10^3."""
    if v == 0:
        return "0"
    v = float(f"{v:.6g}")   # a locator's 0.30000000000000004 is 0.3
    if abs(v) >= 1000 and v.is_integer():
        return f"{v:,.0f}"
    return np.format_float_positional(v, trim="-")


def count_label(v: float, pos=None) -> str:
    """A count of elements or work-items: plain up to 4,096, then K, M, G (1024, 1024², 1024³)."""
    for power, letter in ((3, "G"), (2, "M"), (1, "K")):
        unit = 1024 ** power
        if abs(v) > 4096 and abs(v) >= unit:
            return f"{plain_number(v / unit)}{letter}"
    return plain_number(v)


def bytes_label(v: float, pos=None) -> str:
    """A number of bytes in B, KiB, MiB or GiB."""
    for power, unit in ((3, "GiB"), (2, "MiB"), (1, "KiB")):
        if abs(v) >= 1024 ** power:
            return f"{plain_number(v / 1024 ** power)} {unit}"
    return f"{plain_number(v)} B"


def _minor_plain(axis):
    """Minor tick labels of a log axis: plain numbers where the axis spans less than two decades
    (too few major ticks to read it by), none otherwise."""
    def label(v: float, pos=None) -> str:
        lo, hi = sorted(abs(x) for x in axis.get_view_interval())
        if lo <= 0 or math.log10(hi / lo) >= 2:
            return ""
        mantissa = v / 10 ** math.floor(math.log10(v) + 1e-9)
        return plain_number(v) if round(mantissa) in (2, 5) else ""
    return ticker.FuncFormatter(label)


def plain_axes(fig) -> None:
    """Every axis of ``fig`` labelled in plain numbers: a linear axis without offset or scientific
    notation, a log axis with plain numbers where matplotlib writes powers of ten. Formatters the
    chart set itself (counts, bytes) stay."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            major = axis.get_major_formatter()
            if axis.get_scale() == "log":
                if isinstance(major, ticker.LogFormatter):
                    axis.set_major_formatter(ticker.FuncFormatter(plain_number))
                if isinstance(axis.get_minor_formatter(), ticker.LogFormatter):
                    axis.set_minor_formatter(_minor_plain(axis))
            elif isinstance(major, ticker.ScalarFormatter):
                major.set_useOffset(False)
                major.set_scientific(False)


def time_unit(seconds: Iterable[float]) -> tuple[str, float]:
    """The unit that fits times of at most ``max(seconds)``, and the factor from seconds to it."""
    top = max((abs(s) for s in seconds), default=0.0)
    if top >= 1.0:
        return "s", 1.0
    if top >= 1e-3:
        return "ms", 1e3
    return "µs", 1e6


def fitting_time(values: Iterable[float], unit: str) -> tuple[str, float]:
    """For times given in ``unit`` (s, ms or µs): the unit that fits them, and the factor from
    ``unit`` to it. Another unit (GB/s, say) stays, with a factor of 1."""
    to_seconds = {"s": 1.0, "ms": 1e-3, "µs": 1e-6}
    if unit not in to_seconds:
        return unit, 1.0
    new, factor = time_unit(v * to_seconds[unit] for v in values)
    return new, to_seconds[unit] * factor


def tenfold(values_by_device: dict[str, Iterable[float]]) -> bool:
    """Whether two devices' largest values differ more than tenfold (so that a linear axis shared
    by them would flatten the smaller one)."""
    tops = [max((abs(v) for v in vs if v), default=0.0) for vs in values_by_device.values()]
    tops = [t for t in tops if t > 0]
    return len(tops) > 1 and max(tops) > TENFOLD * min(tops)


def within_spread(rows: list[dict], role: str = "given", name: str = "the start") -> str:
    """The timed rows (``seconds``, ``min_seconds``, ``max_seconds``) whose fastest-to-slowest
    range overlaps that of the row whose ``role`` is ``role`` (they are not told apart), as a
    line for an axis label: "within the spread of NAME: X and Y"; empty where none does."""
    start = next((r for r in rows if r.get("role") == role and "seconds" in r), {})
    close = [r["label"] for r in rows if start and r is not start and "seconds" in r and
             r["min_seconds"] <= start["max_seconds"] and start["min_seconds"] <= r["max_seconds"]]
    return f"\nwithin the spread of {name}: {' and '.join(close)}" if close else ""


def legend_outside(ax, **kwargs):
    """The axes' legend to its right, outside the data (tight_layout makes room for it)."""
    kwargs.setdefault("fontsize", 8)
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                     frameon=False, **kwargs)


def legend_below(fig, handles, ncol: int | None = None, **kwargs):
    """One legend for the whole figure, under its axes (for figures of several panels that share
    their legend); call :func:`finish` with ``below=True`` to keep room for it."""
    kwargs.setdefault("fontsize", 8)
    return fig.legend(handles=handles, loc="lower center", ncol=ncol or len(handles),
                      frameon=False, **kwargs)


def finish(fig, below: bool = False):
    """Plain tick labels on every axis, then the layout (leaving a strip for a legend below)."""
    plain_axes(fig)
    fig.tight_layout(rect=(0, 0.09, 1, 1) if below else (0, 0, 1, 1))
    return fig


MOST_SERIES = 5   # lines a chart draws: past that, a reader follows none of them


def pick_series(labels: list[str], most: int = MOST_SERIES) -> list[str]:
    """At most ``most`` of ``labels``, evenly spread over them, the first and the last included
    (a sweep's extremes and its middle)."""
    if len(labels) <= most:
        return list(labels)
    picks = sorted({round(i * (len(labels) - 1) / (most - 1)) for i in range(most)})
    return [labels[i] for i in picks]


def rate_spread(rows: list[dict], y: str) -> tuple[list[float], list[float]] | None:
    """The slowest and fastest of each row's repeats as ``y`` (a rate, GB/s or GFLOP/s: the rate
    scales with 1 / seconds), or None when the rows carry no spread."""
    if not y.endswith("_per_s") or not all("min_seconds" in r and "max_seconds" in r
                                           and r.get("seconds") for r in rows):
        return None
    low = [r[y] * r["seconds"] / r["max_seconds"] for r in rows]
    high = [r[y] * r["seconds"] / r["min_seconds"] for r in rows]
    return low, high


def spread_band(ax, xs: list, rows: list[dict], y: str, color) -> list[float] | None:
    """A light band from the slowest to the fastest of each row's repeats (``rows`` in the order
    of ``xs``); the band's upper edge, or None where the rows carry no spread."""
    band = rate_spread(rows, y)
    if band is None:
        return None
    ax.fill_between(xs, band[0], band[1], color=color, alpha=0.18, linewidth=0)
    return band[1]


def peak_line(ax, peak: float | None, label: str, top: float, short) -> None:
    """The y axis from 0 to just above ``top`` (the data's highest), with ``peak`` drawn as a
    dotted line where it is near the data, else written in the corner: a peak far above the
    lines would flatten them."""
    ax.set_ylim(0, top * 1.08 if top else None)
    if peak and peak <= top * 1.5:
        ax.axhline(peak, color="black", linestyle=":", linewidth=1)
        ax.text(0.0, peak, f" {label}", va="bottom", fontsize=8, transform=ax.get_yaxis_transform())
        ax.set_ylim(0, max(top, peak) * 1.08)
    elif peak:
        ax.text(0.01, 0.98, f"{label}: {short(peak)}, above this chart (the lines reach "
                f"{top / peak:.0%} of it)", transform=ax.transAxes, va="top", fontsize=8)
