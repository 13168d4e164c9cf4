"""matplotlib figures that render statically (also in an HTML export and under nbval).

Each function takes measured results (the dicts :mod:`helpers.bench` returns) and returns a Figure;
widgets draw through these same functions. How every chart reads (a colour per series, plain tick
labels, legends off the data, devices of different scales apart) is :mod:`helpers.chartstyle`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import ticker
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .chartstyle import (
    bytes_label,
    count_label,
    finish,
    fitting_time,
    legend_below,
    legend_outside,
    markers,
    palette,
    peak_line,
    pick_series,
    plain_number,
    spread_band,
    tenfold,
    time_unit,
    within_spread,
)
from .wording import plural

KIND_COLORS = {"set-up": "#d55e00", "transfer": "#999999", "execution": "#0072b2"}


def _ms(seconds: float) -> str:
    """A duration in the unit that fits it: 12.3 ms, 45 µs, 1.2 s."""
    unit, factor = time_unit([seconds])
    return f"{_short(seconds * factor)} {unit}"


def _short(v: float) -> str:
    """Three significant digits, written plainly (1230, not 1.23e+03)."""
    return plain_number(float(f"{v:.3g}"))


def runtime_profile(profile: dict, title: str | None = None) -> Figure:
    """Horizontal bars, one per stage of the start-up profile, on a log scale of milliseconds."""
    stages = profile["stages"]
    names = [s["stage"] for s in stages]
    secs = [s["seconds"] for s in stages]
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(stages) + 1.2))
    colors = [KIND_COLORS[s["kind"]] for s in stages]
    y = range(len(stages))[::-1]
    ax.barh(list(y), [s * 1e3 for s in secs], color=colors)
    ax.set_yticks(list(y), names)
    ax.set_xscale("log")
    ax.set_xlabel("milliseconds (log scale; wall-clock on the host)")
    for yi, s in zip(y, secs, strict=True):
        ax.text(s * 1e3 * 1.08, yi, _ms(s), va="center", fontsize=9)
    ax.set_xlim(right=max(secs) * 1e3 * 8)
    dev = profile["environment"]["device"]
    ax.set_title(title or f"Where the time goes: copying {profile['bytes'] / 2**20:.0f} MiB on "
                 f"{dev['device']}\n({dev['platform']}, driver {dev['driver_version']})",
                 fontsize=10)
    legend_outside(ax, handles=[Patch(color=c, label=k) for k, c in KIND_COLORS.items()],
                   fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    return finish(fig)


def _device_line(result: dict) -> str:
    dev = result["environment"]["device"]
    return f"{dev['device']} ({dev['platform']}, driver {dev['driver_version']})"


def ndrange_grid(values, local_size: tuple[int, ...], title: str = "",
                 highlight: tuple[int, int] | None = None, max_labels: int = 40,
                 labels: bool = True) -> Figure:
    """The NDRange as a grid: one cell per work-item, colored by ``values`` (rows = dimension 1,
    columns = dimension 0), each cell's value written in it, work-group borders drawn thick.

    :arg highlight: (global id 0, global id 1) of a work-item to outline.
    :arg labels: write each cell's value in it (when the grid is small enough to read).
    """
    values = np.asarray(values)
    if values.ndim == 1:
        values = values[None, :]
    gy, gx = values.shape
    lx = local_size[0]
    ly = local_size[1] if len(local_size) > 1 else 1
    cell = 0.42 if max(gx, gy) <= 24 else max(8.0 / max(gx, gy), 0.08)
    fig, ax = plt.subplots(figsize=(max(gx * cell, 3.0) + 1.2, max(gy * cell, 1.0) + 1.0))
    ax.imshow(values, cmap="viridis", interpolation="nearest", aspect="equal")
    if labels and gx <= max_labels and gy <= max_labels:
        lo, hi = values.min(), values.max()
        for y in range(gy):
            for x in range(gx):
                v = values[y, x]
                dark = hi == lo or (v - lo) / (hi - lo) < 0.6
                ax.text(x, y, str(v), ha="center", va="center", fontsize=8 if gx <= 24 else 6,
                        color="white" if dark else "black")
    for x in range(0, gx + 1, lx):
        ax.axvline(x - 0.5, color="#d55e00", lw=2.2)
    for y in range(0, gy + 1, ly):
        ax.axhline(y - 0.5, color="#d55e00", lw=2.2)
    if highlight is not None:
        hx, hy = highlight
        ax.add_patch(plt.Rectangle((hx - 0.5, hy - 0.5), 1, 1, fill=False, ec="#ff2d95", lw=3))
    ax.set_xticks(range(gx) if gx <= max_labels else [])
    ax.set_yticks(range(gy) if gy <= max_labels else [])
    ax.tick_params(labelsize=7, length=0)
    ax.set_xlabel("dimension 0 (get_global_id(0))")
    ax.set_ylabel("dimension 1")
    ax.set_title(title, fontsize=10)
    return finish(fig)


def throughput_sweep(sweep: dict, peak: dict | None = None, reference: dict | None = None) -> Figure:
    """GB/s against the number of elements (log scales: a reference device, the H100's say, may be
    a hundred times faster), with this device's measured bandwidth peak."""
    fig, ax = plt.subplots(figsize=(9, 4))
    results = [r for r in (sweep, reference) if r is not None]
    styles = ("o-", "s--")[:len(results)]
    for result, style, color in zip(results, styles, palette(len(results)), strict=True):
        pts = sorted(result["points"], key=lambda p: p["n"])
        ax.plot([p["n"] for p in pts], [p["gb_per_s"] for p in pts], style, color=color,
                label=f"{result['exercise']} on {result['environment']['device']['device']}")
        spread_band(ax, [p["n"] for p in pts], pts, "gb_per_s", color)   # its repeats' spread
    if peak is not None:
        ax.axhline(peak["bandwidth_gb_per_s"], color="#d55e00", ls=":",
                   label=f"measured peak bandwidth {peak['bandwidth_gb_per_s']:.0f} GB/s")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(count_label))
    ax.set_xlabel("elements n (log scale; K = 1024, M = 1024²)")
    ax.set_ylabel("GB/s (log scale; 12 bytes per element)")
    ax.set_title(f"Data throughput against size\n{_device_line(sweep)}", fontsize=10)
    legend_outside(ax)
    ax.grid(alpha=0.3, which="both")
    return finish(fig)


def roofline(sweep: dict, peak: dict, reference: tuple[dict, dict] | None = None) -> Figure:
    """GFLOP/s against FLOP per byte (log-log) under this device's two roofs: the bandwidth slope
    and the compute ceiling, which meet at the ridge point. ``reference``: (sweep, peaks) of another
    device drawn faintly beside, in a colour of its own."""
    fig, ax = plt.subplots(figsize=(9, 4.6))
    pairs = [p for p in ((sweep, peak), reference) if p is not None and p[0] is not None]
    for k, ((sw, pk), color) in enumerate(zip(pairs, palette(len(pairs)), strict=True)):
        alpha, mark = (1.0, "o") if k == 0 else (0.55, "s")
        pts = sw["points"]
        x = np.array([p["flop_per_byte"] for p in pts])
        lo, hi = min(x.min(), 0.1) / 2, max(x.max(), 1000) * 2
        xs = np.logspace(np.log10(lo), np.log10(hi), 200)
        bw, fl = pk["bandwidth_gb_per_s"], pk["compute_gflop_per_s"]
        name = sw["environment"]["device"]["device"]
        ax.plot(xs, np.minimum(xs * bw, fl), "-", color=color, alpha=alpha, lw=1.5,
                label=f"roofs of {name}: {bw:.0f} GB/s, {fl:.0f} GFLOP/s")
        ax.plot(x, [p["gflop_per_s"] for p in pts], mark, color=color, alpha=alpha,
                label=f"matrix_vector on {name}")
        ax.axvline(fl / bw, color=color, ls=":", alpha=alpha)
        if k == 0:
            for p in pts:
                ax.annotate(f"N={p['repeat']}", (p["flop_per_byte"], p["gflop_per_s"]),
                            textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP per byte moved, log scale)")
    ax.set_ylabel("GFLOP/s (log scale)")
    ax.set_title(f"Roofline: matrix_vector as N grows\n{_device_line(sweep)}", fontsize=10)
    legend_outside(ax)
    ax.grid(alpha=0.3, which="both")
    return finish(fig)


def throughput_vs_repeat(sweep: dict, peak: dict) -> Figure:
    """Data throughput (GB/s) and computational throughput (GFLOP/s) of matrix_vector against the
    repeat count N, each beside its measured peak; the crossover is marked."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4.2))
    pts = sweep["points"]
    n = [p["repeat"] for p in pts]
    a1.plot(n, [p["gb_per_s"] for p in pts], "o-", color="#0072b2")
    spread_band(a1, n, pts, "gb_per_s", "#0072b2")
    a1.axhline(peak["bandwidth_gb_per_s"], color="#d55e00", ls=":")
    a1.set_ylabel("GB/s (log scale)")
    a1.set_title("data throughput", fontsize=10)
    a2.plot(n, [p["gflop_per_s"] for p in pts], "o-", color="#009e73")
    spread_band(a2, n, pts, "gflop_per_s", "#009e73")
    a2.axhline(peak["compute_gflop_per_s"], color="#d55e00", ls=":")
    a2.set_ylabel("GFLOP/s (log scale)")
    a2.set_title("computational throughput", fontsize=10)
    cross = sweep.get("crossover_repeat")
    handles = [Line2D([], [], color="#d55e00", ls=":", label="measured peak")]
    for ax in (a1, a2):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("repeat count N (log scale)")
        if cross:
            ax.axvline(cross, color="#999999", ls="--")
        ax.grid(alpha=0.3, which="both")
    if cross:
        handles.append(Line2D([], [], color="#999999", ls="--",
                              label=f"crossover N ≈ {cross:.0f}"))
    legend_below(fig, handles)
    fig.suptitle(f"matrix_vector, {sweep['rows']} x {sweep['cols']} floats: "
                 f"{_device_line(sweep)}", fontsize=10)
    return finish(fig, below=True)


def group_order(tickets, title: str = "") -> Figure:
    """When each work-group started: its ticket (0 = first) against its group id."""
    tickets = np.asarray(tickets)
    fig, ax = plt.subplots(figsize=(9, 3.2))
    ax.plot(np.arange(tickets.size), tickets, ".", ms=4, color="#0072b2", label="work-groups")
    ax.plot([0, tickets.size - 1], [0, tickets.size - 1], color="#999999", lw=0.8, ls="--",
            label="in order of group id")
    ax.set_xlabel("get_group_id(0)")
    ax.set_ylabel("ticket (start order)")
    ax.set_title(title, fontsize=10)
    legend_outside(ax)
    return finish(fig)


def timings(rows: list[tuple[str, float]], title: str = "", unit: str | None = None) -> Figure:
    """Horizontal bars of kernel times (seconds), one per variant, with the time written beside
    each, in ``unit`` (ms or µs; by default the one that fits the longest)."""
    scale = {"ms": 1e3, "µs": 1e6, "s": 1.0}[unit] if unit else None
    if scale is None:
        unit, scale = time_unit(t for _, t in rows)
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(rows) + 1.2))
    y = list(range(len(rows)))[::-1]
    ax.barh(y, [t * scale for _, t in rows], color="#0072b2")
    ax.set_yticks(y, [name for name, _ in rows])
    for yi, (_, t) in zip(y, rows, strict=True):
        ax.text(t * scale, yi, f" {_short(t * scale)} {unit}", va="center", fontsize=9)
    ax.set_xlabel(f"kernel time ({unit}, median)")
    ax.set_xlim(right=max(t for _, t in rows) * scale * 1.3)
    ax.set_title(title, fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    return finish(fig)


# --------------------------------------------------------------------------------------------------
# Level 3: the models and the studies.

PIPE_COLORS = {"comp": "#0072b2", "mem": "#e69f00"}


def pipeline(schedule, title: str = "") -> Figure:
    """A dual-pipeline run (:func:`helpers.gpu_models.simulate`): one row per warp, a bar from each
    instruction's issue to its completion, barriers as dashed lines."""
    warps = 1 + max((x.warp for x in schedule.issued), default=0)
    fig, ax = plt.subplots(figsize=(10, 0.35 * warps + 1.6))
    for x in schedule.issued:
        ax.barh(warps - 1 - x.warp, x.end - x.start, left=x.start, height=0.6,
                color=PIPE_COLORS[x.kind], alpha=0.45, edgecolor=PIPE_COLORS[x.kind])
        ax.plot([x.start], [warps - 1 - x.warp], "|", color="black", markersize=8)
    for t in schedule.barriers:
        ax.axvline(t, color="#d55e00", linestyle="--", linewidth=1)
    ax.set_yticks(range(warps), [f"warp {w}" for w in range(warps)][::-1])
    ax.set_xlabel("cycles (| issue, bar until the result is ready)")
    ax.set_title(title or plural(schedule.cycles, "cycle", fmt="g"), fontsize=10)
    legend_outside(ax, handles=[Patch(color=PIPE_COLORS["comp"], alpha=0.45, label="computation"),
                                Patch(color=PIPE_COLORS["mem"], alpha=0.45, label="memory")])
    ax.spines[["top", "right"]].set_visible(False)
    return finish(fig)


def occupancy(result, title: str = "") -> Figure:
    """Work-groups per compute unit that each resource alone allows; the smallest binds."""
    names = list(result.per_resource)
    values = [result.per_resource[k] for k in names]
    fig, ax = plt.subplots(figsize=(7, 2.6))
    colors = ["#d55e00" if k == result.limited_by else "#999999" for k in names]
    ax.barh(names[::-1], values[::-1], color=colors[::-1])
    for i, v in enumerate(values[::-1]):
        ax.text(v, i, f" {v}", va="center", fontsize=9)
    ax.set_xlabel("work-groups per compute unit that this resource allows")
    ax.set_title(title or f"{plural(result.groups, 'work-group')}, "
                 f"{plural(result.warps, 'warp')}: occupancy {result.occupancy:.0%} "
                 f"(limited by {result.limited_by})", fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    return finish(fig)


def sweep_lines(rows: list[dict], x: str, y: str, title: str = "", xlabel: str = "",
                ylabel: str = "", peak: float | None = None, peak_label: str = "") -> Figure:
    """``y`` against ``x`` per row label, with its repeats' spread; at most five lines (evenly
    picked), the axis fitted to them (a peak far above is written, not drawn)."""
    fig, ax = plt.subplots(figsize=(9, 4.2))
    every = list(dict.fromkeys(r["label"] for r in rows))
    labels = pick_series(every)
    top = 0.0
    for label, color, mark in zip(labels, palette(len(labels)), markers(len(labels)), strict=True):
        mine = sorted((r for r in rows if r["label"] == label), key=lambda r: r[x])
        xs, ys = [r[x] for r in mine], [r[y] for r in mine]
        ax.plot(xs, ys, "-", marker=mark, color=color, label=label, markersize=4)
        top = max([top, *(spread_band(ax, xs, mine, y, color) or ys)])
    ax.set_xscale("log", base=2)
    peak_line(ax, peak, peak_label, top, _short)
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(count_label))
    ax.set_xlabel(f"{xlabel or x} (log scale)")
    ax.set_ylabel(ylabel or y)
    left = len(every) - len(labels)
    ax.set_title(title + (f"\n{len(labels)} of {len(every)} series, evenly picked"
                          if left else ""), fontsize=10)
    legend_outside(ax, fontsize=7)
    ax.spines[["top", "right"]].set_visible(False)
    return finish(fig)


def compare(series: dict[str, dict[str, float]], title: str = "", unit: str = "ms",
            log: bool = True) -> Figure:
    """Grouped horizontal bars: for each variant, one bar per device (``series`` maps a device
    name to {variant: value}); devices without a variant leave a gap. Times are shown in the unit
    that fits them; devices that differ more than tenfold get a log axis even when ``log`` is off
    (a linear one would flatten the slower), and the axis says so."""
    variants = list(dict.fromkeys(v for s in series.values() for v in s))
    unit, factor = fitting_time([v for s in series.values() for v in s.values()], unit)
    forced = not log and tenfold({d: s.values() for d, s in series.items()})
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(variants) * max(1, len(series) / 1.6) + 1.4))
    height = 0.8 / max(len(series), 1)
    for k, ((device, values), color) in enumerate(zip(series.items(), palette(len(series)),
                                                      strict=True)):
        ys = [len(variants) - 1 - i + (k - (len(series) - 1) / 2) * -height
              for i, v in enumerate(variants) if v in values]
        xs = [values[v] * factor for v in variants if v in values]
        ax.barh(ys, xs, height=height, color=color, label=device)
        for yy, xx in zip(ys, xs, strict=True):
            ax.text(xx, yy, f" {_short(xx)}", va="center", fontsize=7)
    ax.set_yticks(range(len(variants))[::-1], variants, fontsize=8)
    if log or forced:
        ax.set_xscale("log")
    ax.set_xlabel(unit + (" (log scale: the devices differ more than tenfold)" if forced else
                          " (log scale)" if log else ""))
    ax.set_title(title, fontsize=10)
    legend_outside(ax)
    ax.spines[["top", "right"]].set_visible(False)
    return finish(fig)


# the kernel an exercise starts from, the learner's, the solution: one colour each, in both panels
ROLE_COLORS = {"given": "#d55e00", "yours": "#009e73", "solution": "#0072b2"}


def model_beside_time(result: dict) -> Figure:
    """A technique's lesson, one bar per kernel (the one the exercise starts from, the learner's
    once it has passed, the solution: :func:`helpers.checking.counters.model_and_times`). Left,
    the warp model's counter of the technique: what a GPU's warps would do, the same on every
    device, a model and not a measurement, its ideal dotted. Right, each kernel's time measured
    on this device (median; whiskers: the fastest and slowest run)."""
    rows, timed = result["rows"], [r for r in result["rows"] if "seconds" in r]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 0.5 * len(rows) + 2.4), sharey=True)
    unit, factor = time_unit(r["max_seconds"] for r in timed)
    y = list(range(len(rows)))[::-1]
    for yi, r, color in zip(y, rows, palette(len(rows)), strict=True):
        color, value = ROLE_COLORS.get(r["role"], color), r["value"] or 0.0
        left.barh(yi, value, color=color, label=r["label"])
        left.text(value, yi, " -" if r["value"] is None else f" {_short(value)}", va="center",
                  fontsize=8)
        if "seconds" not in r:
            right.text(0, yi, " not timed", va="center", fontsize=8)
            continue
        t, low, high = (r[k] * factor for k in ("seconds", "min_seconds", "max_seconds"))
        right.barh(yi, t, color=color, label=r["label"], xerr=[[t - low], [high - t]],
                   ecolor="#555555", capsize=2)
        right.text(high, yi, f" {_short(t)}", va="center", fontsize=8)
    ideals = {r["ideal"] for r in rows if r["ideal"] is not None}
    ideal = ideals.pop() if len(ideals) == 1 else None
    if ideal:
        left.axvline(ideal, color="black", linestyle=":", linewidth=1)
    top = max([r["value"] or 0.0 for r in rows] + [ideal or 0.0])
    left.set_xlim(0, top * 1.3 if top else 1.0)
    left.set_yticks(y, [r["label"] for r in rows], fontsize=8)
    left.xaxis.set_major_formatter(ticker.FuncFormatter(plain_number))
    left.set_xlabel(result["what"] + ("" if ideal is None else f" (ideal {_short(ideal)}"
                                      f"{', dotted' if ideal else ''})")
                    + f"\ncase {result['model_case']}", fontsize=8)
    left.set_title("the warp model: what a GPU's warps would do\n(a model on Oclgrind, the same "
                   "on every device)", fontsize=9)
    right.set_xlim(0, max([r["max_seconds"] for r in timed], default=1.0) * factor * 1.3)
    right.set_xlabel(f"kernel time, {unit} (median; whiskers: fastest and slowest run)\ncase "
                     f"{result.get('case', '')}{within_spread(rows)}", fontsize=8)
    right.set_title(f"measured on this device\n{_device_line(result)}", fontsize=9)
    for ax in (left, right):
        ax.spines[["top", "right"]].set_visible(False)
    fig.suptitle(f"{result['exercise']}: the model of a GPU beside this device's clock",
                 fontsize=10)
    return finish(fig)


TRANSFER_KINDS = ("numpy (pageable)", "pinned (ALLOC_HOST_PTR)", "mapped (zero-copy)")


def transfer_bandwidth(result: dict, reference: dict | None = None) -> Figure:
    """GB/s of host-to-device (left) and device-to-host (right) transfers against their size, one
    line per kind of host memory; ``reference`` (another device's result) dashed beside it, each
    line in a colour of its own, on log scales (the H100's link is many times a CPU's copy).
    Zero-copy moves no bytes: its line is the size over the time a map and unmap take."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True)
    runs = [(res, style, tag) for res, style, tag in
            ((result, "o-", ""), (reference, "s--", "H100: ")) if res is not None]
    lines = [(res, style, tag, kind) for res, style, tag in runs
             for kind in dict.fromkeys(r["kind"] for r in res["rows"])]
    colors = palette(len(lines))
    for ax, key, what in zip(axes, ("h2d_gb_per_s", "d2h_gb_per_s"),
                             ("host to device", "device to host"), strict=True):
        for (res, style, tag, kind), color in zip(lines, colors, strict=True):
            pts = sorted((r["bytes"], r[key]) for r in res["rows"] if r["kind"] == kind)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, markersize=3, color=color,
                    label=tag + kind)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.xaxis.set_major_locator(ticker.LogLocator(base=2, numticks=6))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(bytes_label))
        ax.set_xlabel("bytes per transfer (log scale)")
        ax.set_title(what, fontsize=10)
        ax.spines[["top", "right"]].set_visible(False)
    axes[0].set_ylabel("GB/s, log scale (zero-copy: bytes / map time)")
    legend_outside(axes[1], fontsize=7)
    fig.suptitle(f"Transfers on {_device_line(result)}", fontsize=10)
    return finish(fig)


COMMAND_COLORS = {"copy in": "#e69f00", "kernel": "#0072b2", "copy out": "#009e73"}


def _command_bar(ax, y: float, c: dict, factor: float) -> None:
    """One command of a timeline as a bar from its start to its end (seconds, drawn times
    ``factor``: in ms or µs)."""
    ax.barh(y, (c["end"] - c["start"]) * factor, left=c["start"] * factor, height=0.6,
            color=COMMAND_COLORS[c["what"]], edgecolor="white", linewidth=0.5)


def _finish_timeline(fig: Figure, ax) -> Figure:
    legend_outside(ax, handles=[Patch(color=c, label=k) for k, c in COMMAND_COLORS.items()])
    ax.spines[["top", "right"]].set_visible(False)
    return finish(fig)


def timeline(result: dict) -> Figure:
    """The overlap experiment as a timeline: one lane per queue and run, a bar per command
    (copy in, kernel, copy out) from its profiling start to its end, the chunk's number on it."""
    lanes = []
    for run in result["runs"]:
        queues = sorted({c["queue"] for c in run["commands"]})
        for q in queues:
            lanes.append((f"{run['label']}\nqueue {q + 1}" if len(queues) > 1 else run["label"],
                          [c for c in run["commands"] if c["queue"] == q]))
    unit, factor = time_unit(c["end"] for _, cmds in lanes for c in cmds)
    fig, ax = plt.subplots(figsize=(11, 0.7 * len(lanes) + 1.4))
    for y, (_, cmds) in enumerate(reversed(lanes)):
        for c in cmds:
            _command_bar(ax, y, c, factor)
            if c["what"] == "kernel":
                ax.text((c["start"] + c["end"]) / 2 * factor, y, str(c["chunk"]), ha="center",
                        va="center", fontsize=7, color="white")
    ax.set_yticks(range(len(lanes)), [name for name, _ in reversed(lanes)], fontsize=8)
    ax.set_xlabel(f"{unit} from the first command's start (profiling events)")
    spans = ", ".join(f"{r['label']}: {_ms(r['seconds'])}" for r in result["runs"])
    ax.set_title(f"{plural(result['chunks'], 'chunk')} of {result['chunk_bytes'] / 2**20:.0f} "
                 f"MiB: copy in, kernel, copy out ({spans})\n{_device_line(result)}", fontsize=9)
    return _finish_timeline(fig, ax)


def device_timeline(result: dict) -> Figure:
    """A job split across devices (:func:`helpers.studies.advanced.split_job`): one lane per
    device, a bar per command (copy in, kernel, copy out), on the host's clock."""
    names = result["devices"]
    unit, factor = time_unit(c["end"] for c in result["commands"])
    fig, ax = plt.subplots(figsize=(11, 0.8 * len(names) + 1.4))
    for c in result["commands"]:
        _command_bar(ax, len(names) - 1 - c["device"], c, factor)
    shares = result["rows"][-1]["shares"]
    ax.set_yticks(range(len(names)), [f"{name}\n{share:.0%} of the job"
                                      for name, share in zip(names, shares, strict=True)][::-1],
                  fontsize=8)
    ax.set_xlabel(f"{unit} on the host's clock (each device's events placed at its first "
                  "enqueue)")
    split = result["rows"][-1]
    ax.set_title(f"{plural(result['n'], 'element')} split by measured speed: "
                 f"{_ms(split['seconds'])} (the ideal split: {_ms(split['ideal_seconds'])})",
                 fontsize=9)
    return _finish_timeline(fig, ax)


def tuning_space(record: dict, title: str = "") -> Figure:
    """Every configuration a tuning run timed, sorted by speed, coloured by whether its tiles go
    through local memory, with the best one named (cf. Du et al. 2011, Fig. 14)."""
    tried = sorted((t for t in record["tried"] if "gflop_per_s" in t),
                   key=lambda t: t["gflop_per_s"])
    fig, ax = plt.subplots(figsize=(10, 3.6))
    colors = ["#0072b2" if t["LOCAL"] else "#e69f00" for t in tried]
    ax.bar(range(len(tried)), [t["gflop_per_s"] for t in tried], color=colors, width=1.0)
    ax.set_xlabel(f"the {plural(len(tried), 'configuration')} timed, slowest to fastest "
                  f"({record['space_size']} valid in the space)")
    ax.set_ylabel("GFLOP/s")
    best = tried[-1] if tried else None
    if best:
        ax.annotate(f"best: {best['TM']}x{best['TN']} tile, {best['TX']}x{best['TY']} work-items, "
                    f"TK={best['TK']}, VW={best['VW']}: {best['gflop_per_s']:.1f} GFLOP/s",
                    (len(tried) - 1, best["gflop_per_s"]), xytext=(-10, -4),
                    textcoords="offset points", ha="right", va="top", fontsize=8)
    legend_outside(ax, handles=[Patch(color="#0072b2", label="tiles in local memory"),
                                Patch(color="#e69f00", label="no local memory")])
    ax.set_title(title or "The tuning run's configurations", fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    return finish(fig)


def rates(rows: list[dict], peak: float | None = None, title: str = "") -> Figure:
    """Horizontal bars of GFLOP/s, one per row (``label``, ``gflop_per_s``), with the share of
    ``peak`` written beside each when given."""
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.3))
    y = list(range(len(rows)))[::-1]
    values = [r["gflop_per_s"] for r in rows]
    # the spread over the repeats, as a whisker: bars whose whiskers overlap are not told apart
    pairs = list(zip(values, rows, strict=True))
    low = [v - v * r["seconds"] / r.get("max_seconds", r["seconds"]) for v, r in pairs]
    high = [v * r["seconds"] / r.get("min_seconds", r["seconds"]) - v for v, r in pairs]
    ax.barh(y, values, color="#0072b2", xerr=[low, high], ecolor="#555555", capsize=2)
    ax.set_yticks(y, [r["label"][:48] for r in rows], fontsize=8)
    for yi, v in zip(y, values, strict=True):
        share = ("" if not peak else " (above the measured peak)" if v > peak else
                 f" ({100 * v / peak:.0f}% of peak)")
        ax.text(v, yi, f" {_short(v)}{share}", va="center", fontsize=8)
    ax.set_xlabel("GFLOP/s (median; whiskers: fastest and slowest run)")
    ax.set_xlim(right=max(values) * 1.45)
    ax.set_title(title, fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    return finish(fig)


def _work_group_line(ax, rows: list[dict], color, label: str, chosen: int | str | None) -> None:
    """One device's GB/s against the local size, its NULL as a dashed line, ``chosen`` ringed."""
    sized = sorted((r["local"], r["gb_per_s"]) for r in rows if r.get("local"))
    ax.plot([s for s, _ in sized], [g for _, g in sized], "o-", markersize=3, color=color,
            label=label)
    spread_band(ax, [s for s, _ in sized], sorted((r for r in rows if r.get("local")),
                                                  key=lambda r: r["local"]), "gb_per_s", color)
    null = [r["gb_per_s"] for r in rows if r.get("local") is None]
    if null:
        ax.axhline(null[0], color=color, linestyle="--", linewidth=1)
        ax.text(sized[0][0] if sized else 1, null[0], " NULL", color=color, fontsize=7,
                va="bottom")
    at = [g for s, g in sized if s == chosen] or (null if chosen == "NULL" else [])
    if at:
        ax.plot([chosen if chosen != "NULL" else sized[-1][0]], at, "o", markersize=11,
                markerfacecolor="none", markeredgecolor="black")


def work_group_sizes(series: dict[str, list[dict]], chosen: int | str | None = None,
                     title: str = "y = a x + y: GB/s against the work-group size") -> Figure:
    """One line per device (``series`` maps a device name to the rows of
    :func:`helpers.studies.lessons.work_group_sizes`): GB/s at each local size, and a dashed line at the
    throughput with the local size left to the driver (NULL). ``chosen`` marks one size ("NULL"
    marks the driver's). Devices whose throughputs differ more than tenfold (a CPU beside the
    H100) each get a panel with a y-axis of its own, and the title says so."""
    apart = tenfold({d: [r["gb_per_s"] for r in rows] for d, rows in series.items()})
    panels = len(series) if apart else 1
    fig, axes = plt.subplots(1, panels, figsize=(10 if panels == 1 else 5.2 * panels, 4),
                             squeeze=False)
    axes = list(axes[0])
    for k, ((device, rows), color) in enumerate(zip(series.items(), palette(len(series)),
                                                    strict=True)):
        ax = axes[k if apart else 0]
        _work_group_line(ax, rows, color, device, chosen)
        if apart:
            ax.set_title(device, fontsize=9)
    for ax in axes:
        if isinstance(chosen, int):
            ax.axvline(chosen, color="black", linewidth=0.8, linestyle=":")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("work-items per work-group (local size)")
        ax.set_ylabel("GB/s")
        ax.spines[["top", "right"]].set_visible(False)
    if apart:
        fig.suptitle(f"{title}\n(each device on its own y-axis: they differ more than tenfold)",
                     fontsize=10)
    else:
        axes[0].set_title(title, fontsize=10)
        legend_outside(axes[0])
    return finish(fig)


def images(pictures: dict[str, np.ndarray], title: str = "") -> Figure:
    """Grey-scale pictures side by side, each under its name (each keeps its own pixel grid)."""
    fig, axes = plt.subplots(1, len(pictures), figsize=(3.2 * len(pictures), 3.4))
    for ax, (name, picture) in zip(np.atleast_1d(axes), pictures.items(), strict=True):
        ax.imshow(picture, cmap="gray", interpolation="nearest")
        ax.set_title(f"{name}\n{picture.shape[1]} x {picture.shape[0]}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    if title:
        fig.suptitle(title, fontsize=10)
    return finish(fig)
