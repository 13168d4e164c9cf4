"""The capstone (notebook 17): one realistic kernel, the softmax of each row of a matrix, taken
rung by rung through the course's ideas (``softmax_rows``, ``softmax_group``, ``softmax_online``),
each rung the learner's own kernel, checked, counted and timed.

Contents: :func:`run` (a rung's kernel on the learner's own matrix, for a numpy sanity check),
:func:`ladder` (each rung's warp-model counts on one matrix and its time on the learner's device,
beside the H100's time for the same rung), :func:`reference` (the H100's figures, from
``results/reference/`` when tools/h100_capstone.sh has measured them), :func:`ladder_figure`
(draws :func:`ladder`'s result), and the lesson's two diagrams, :func:`softmax_reads` (which
work-items read which floats of a row, rung 1 against rung 2) and :func:`online_merge` (the
running maximum and sum, and the merge of two pairs), which :mod:`helpers.diagrams` re-exports.
The checker, the bench and the warp model are imported where they are used: the diagrams need
matplotlib only.
"""

from __future__ import annotations

import math
import secrets
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from .chartstyle import finish, palette, time_unit
from .drawing import BLACK, BLUE, GREY, ORANGE, RED
from .drawing import box as _box
from .drawing import canvas as _canvas

RUNGS = ("softmax_rows", "softmax_group", "softmax_online")
LABELS = {"softmax_rows": "1. a work-item per row", "softmax_group": "2. a work-group per row",
          "softmax_online": "3. online, two passes"}
REFERENCE = "capstone-nvidia-h100"   # results/reference/REFERENCE.json (tools/h100_capstone.sh)
# the one matrix every rung is counted on by the warp model (64 rows of 512 floats): rung 1 with
# work-groups of 32 (two warps), rungs 2 and 3 with a work-group of 128 per row
MODEL_ROWS, MODEL_COLS = 64, 512
COUNTERS = (("global_sectors_per_request", "sectors per request\n(global memory; 4 is ideal)"),
            ("global_requests", "warp requests to\nglobal memory"),
            ("local_wavefronts", "passes (wavefronts)\nover local memory"),
            ("divergent_branches", "warp branches that\nsplit (divergent)"))


def model_case(name: str):
    """The case rung ``name`` is counted on: the same matrix for every rung."""
    from .exercises import Case
    if name == "softmax_rows":
        return Case((MODEL_ROWS,), (32,), {"rows": MODEL_ROWS, "cols": MODEL_COLS}, small=True)
    return Case((MODEL_ROWS * 128,), (128,), {"rows": MODEL_ROWS, "cols": MODEL_COLS},
                small=True)


def measured_kernel(name: str) -> tuple[Path | None, str]:
    """(the kernel file a rung's figures come from, its role): the learner's once it has passed
    its check, else the course's solution where it is here, else (None, "not passed")."""
    from .exercises.passed import NotPassedYet, kernel_and_role
    try:
        return kernel_and_role(name)
    except NotPassedYet:
        return None, "not passed"


def run(ctx, queue, name: str, x_np: np.ndarray, local: int = 64) -> np.ndarray | None:
    """Rung ``name``'s kernel (the learner's once passed, else the solution) on the matrix
    ``x_np`` (rows x cols float32), with work-groups of ``local`` (a power of two): y, as numpy;
    None, said in a sentence, where there is no kernel to run yet."""
    import pyopencl as cl

    from .exercises import Case, LocalMem, Scalar, get, rounded_up
    from .kernels import build_file

    path, _ = measured_kernel(name)
    if path is None:
        print(f"Nothing to run yet: check(\"{name}\") has not passed, and the solutions are not "
              "here.")
        return None
    ex, x_np = get(name), np.ascontiguousarray(x_np, dtype=np.float32)
    rows, cols = x_np.shape
    size = rounded_up(rows, local) if name == "softmax_rows" else rows * local
    case = Case((size,), (local,), {"rows": rows, "cols": cols})
    mf = cl.mem_flags
    x_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x_np)
    y_g = cl.Buffer(ctx, mf.WRITE_ONLY, x_np.nbytes)
    rest = [a.kernel_arg(case) for a in ex.args if isinstance(a, (Scalar, LocalMem))]
    knl = cl.Kernel(build_file(ctx, path, reuse=True), ex.function)
    knl(queue, case.global_size, case.local_size, x_g, y_g, *rest)
    y_np = np.empty_like(x_np)
    cl.enqueue_copy(queue, y_np, y_g)
    return y_np


def reference() -> dict | None:
    """The H100's check of each rung's solution (its time at the check's timing case), by rung,
    with ``device`` and ``date``; None where tools/h100_capstone.sh has not been run yet."""
    from .bench import load_result
    try:
        record = load_result(REFERENCE)
    except FileNotFoundError:
        return None
    out = {}
    for check in record["checks"]:
        speed = (check.get("speed") or {}).get("yours") or {}
        out[check["exercise"]] = {**{k: speed.get(k) for k in ("seconds", "min_seconds",
                                                                "max_seconds", "gb_per_s")},
                                  "case": speed.get("case"), "passed": check["passed"],
                                  "device": check["environment"]["device"]["device"],
                                  "date": check["environment"]["date"][:10]}
    return out


def _counted(name: str, path: Path, seed: int) -> dict:
    from .checking.counters import counters
    facts = counters(name, path, case=model_case(name), seed=seed)
    if not facts["available"]:
        return {"available": False, "why": facts["why"]}
    return {"available": True, **{k: facts.get(k) for k, _ in COUNTERS}}


def ladder(ctx, queue, upto: str = RUNGS[-1], seed: int | None = None) -> dict:
    """Every rung up to ``upto``: the kernel measured (:func:`measured_kernel`), the warp model's counters on
    the same matrix (:func:`model_case`), its time on ``queue``'s device as the check's speed
    pass times it (the timing case; the small one with the small-size switch), and the H100's
    time for the same rung (:func:`reference`). Returns ``rows`` (one a rung), ``h100`` (None
    until measured), ``device``, ``model_case`` and ``case``."""
    from .bench import time_exercise
    from .exercises import get
    from .timing import small_sizes

    seed = secrets.randbits(31) if seed is None else seed
    h100, rows, case = reference(), [], None
    for name in RUNGS[:RUNGS.index(upto) + 1]:
        path, role = measured_kernel(name)
        row = {"exercise": name, "label": LABELS[name], "role": role,
               "h100": (h100 or {}).get(name)}
        if path is not None:
            perf = get(name).performance
            case = perf.small if small_sizes() else perf.case
            row["counters"] = _counted(name, path, seed)
            t = time_exercise(ctx, queue, name, case, kernel=path, seed=seed)
            row.update({k: t[k] for k in ("seconds", "min_seconds", "max_seconds", "gb_per_s")})
        rows.append(row)
    return {"rows": rows, "h100": h100, "device": queue.device.name.strip(),
            "model_case": f"{MODEL_ROWS} x {MODEL_COLS} floats",
            "case": None if case is None else f"{case['rows']} x {case['cols']} floats"}


def table(result: dict) -> str:
    """:func:`ladder`'s result as lines of text, one a rung."""
    lines = [f"{'rung':26} {'kernel':9} {'sectors/req':>11} {'requests':>9} {'local':>7} "
             f"{'split':>6} {'time here':>11} {'H100':>10}"]
    for r in result["rows"]:
        c = r.get("counters") or {}
        counts = [f"{c.get(k, '-') if c.get(k) is not None else '-'}" for k, _ in COUNTERS] \
            if c.get("available") else ["-"] * 4
        here = f"{r['seconds'] * 1e3:.3f} ms" if "seconds" in r else "not passed"
        ref = f"{r['h100']['seconds'] * 1e3:.3f} ms" if r["h100"] else "-"
        lines.append(f"{r['label']:26} {r['role']:9} {counts[0]:>11} {counts[1]:>9} "
                     f"{counts[2]:>7} {counts[3]:>6} {here:>11} {ref:>10}")
    why = next((r["counters"]["why"] for r in result["rows"]
                if not (r.get("counters") or {"available": True})["available"]), None)
    if why:
        lines.append(f"No warp model here, so no counts: {why}.")
    if result["h100"] is None:
        lines.append("The H100's figures for these rungs have not been measured yet "
                     "(tools/h100_capstone.sh measures them).")
    else:
        ref = next(iter(result["h100"].values()))
        lines.append(f"H100: the course's solutions, checked on {ref['device']} on {ref['date']} "
                     f"at {_size(ref)}.")
    return "\n".join(lines)


def _size(ref: dict) -> str:
    """The matrix of a reference record's timing case, in words."""
    params = (ref.get("case") or {}).get("params") or {}
    return f"{params['rows']} x {params['cols']} floats" if params else "not measured yet"


def _bars(ax, labels: list[str], values: list[float | None], colors, title: str,
          unit: str = "") -> None:
    y = list(range(len(labels)))[::-1]
    for yi, v, color in zip(y, values, colors, strict=True):
        if v is None:
            ax.text(0, yi, " -", va="center", fontsize=8)
            continue
        ax.barh(yi, v, color=color)
        ax.text(v, yi, f" {v:,.0f}{unit}" if v >= 100 else f" {v:.3g}{unit}", va="center",
                fontsize=8)
    ax.set_yticks(y, labels, fontsize=8)
    top = max([v for v in values if v is not None], default=0.0)
    ax.set_xlim(0, top * 1.45 if top else 1.0)
    ax.set_title(title, fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)


def ladder_figure(result: dict) -> Figure:
    """:func:`ladder`'s rungs side by side: the warp model's four counters (what a GPU's warps
    would do, on one matrix, the same on every device), then the time on this device and on the
    H100 (each at its own timing case)."""
    import matplotlib.pyplot as plt
    rows = result["rows"]
    labels = [f"{r['label']}\n({r['role']})" for r in rows]
    colors = palette(len(rows))
    fig, axes = plt.subplots(2, 3, figsize=(12, 5.6), sharey=True)
    for ax, (key, title) in zip(axes.flat, COUNTERS, strict=False):
        values = [(r.get("counters") or {}).get(key) for r in rows]
        _bars(ax, labels, values, colors, f"{title}\n(warp model, {result['model_case']})")
    for ax, (what, get) in zip(axes.flat[4:], (
            (f"time on {result['device']}\n({result['case']})", lambda r: r.get("seconds")),
            (f"time on the H100\n({_size(next(iter((result['h100'] or {0: {}}).values())))})",
             lambda r: (r["h100"] or {}).get("seconds"))), strict=True):
        seconds = [get(r) for r in rows]
        unit, factor = time_unit(s for s in seconds if s is not None)
        _bars(ax, labels, [None if s is None else s * factor for s in seconds], colors,
              what, f" {unit}")
        if all(s is None for s in seconds):
            ax.text(0.5, 0.5, "not measured yet", transform=ax.transAxes, ha="center",
                    fontsize=9, color=GREY)
    fig.suptitle("softmax, rung by rung: the warp model's counts and the clocks", fontsize=10)
    return finish(fig)


# {{{ the lesson's diagrams


def readers(rung: int, rows: int, cols: int, group: int) -> list[list[tuple[int, int]]]:
    """Who reads x[r][c], and at which step of its loop: rung 1, work-item r at step c; rung 2,
    work-group r's work-item c % ``group`` at step c // ``group``. One (reader, step) a cell."""
    if rung == 1:
        return [[(r, c) for c in range(cols)] for r in range(rows)]
    return [[(c % group, c // group) for c in range(cols)] for r in range(rows)]


def softmax_reads(rows: int = 4, cols: int = 12, group: int = 4) -> Figure:
    """Which work-item reads which float of the rows, rung 1 (a work-item per row: at each step
    the lanes read floats ``cols`` apart) against rung 2 (a work-group per row: at each step the
    lanes read neighbouring floats). The first step's reads are outlined in red."""
    if rows < 1 or cols < 2 or group < 2:
        raise ValueError("rows >= 1, cols >= 2 and group >= 2")
    fig, ax = _canvas(0.42 * (2 * cols + 9), 0.5 * (rows + 4.2), (-3.2, 2 * cols + 5.5),
                      (-2.6, rows + 1.4), "softmax: who reads which float at each step")
    colors = palette(max(rows, group))
    for panel, x0 in ((1, 0.0), (2, cols + 5.0)):
        who = readers(panel, rows, cols, group)
        for r in range(rows):
            y = rows - 1 - r
            ax.text(x0 - 0.3, y + 0.45, f"row {r}", ha="right", va="center", fontsize=7.5)
            for c in range(cols):
                item, step = who[r][c]
                first = step == 0 and (panel == 1 or r == 0)
                _box(ax, x0 + c + 0.05, y, 0.9, 0.9, str(item), colors[item], edge=RED if first
                     else "white", size=7, alpha=0.8, lw=2.0 if first else 1.0,
                     gid=f"reads:{panel}:{r}:{c}")
        title = (f"rung 1: work-item r walks row r; its first step\nreads column 0: lanes "
                 f"{cols} floats apart" if panel == 1 else
                 f"rung 2: work-group r shares row r; its first step\nreads columns 0-{group - 1}:"
                 " neighbours read neighbours")
        ax.text(x0 + cols / 2, rows + 0.35, title, ha="center", va="bottom", fontsize=8)
    ax.text(-3.0, -1.4, "A cell's number and colour: the work-item that reads it (rung 1: its "
            "global id; rung 2: its local id in the row's work-group). Red: the first step's "
            "reads.", fontsize=8, va="center")
    return finish(fig)


def online_pairs(values: list[float]) -> list[tuple[float, float]]:
    """The running (maximum m, sum s of exp(x - m)) after each value, the online way: when m
    grows to m2, s is rescaled by exp(m - m2) before exp(x - m2) is added."""
    m, s, out = -math.inf, 0.0, []
    for v in values:
        m2 = max(m, v)
        s = s * math.exp(m - m2) + math.exp(v - m2)
        m = m2
        out.append((m, s))
    return out


def merged(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """Two pairs (m, s) merged: the larger maximum, each sum rescaled to it."""
    m = max(a[0], b[0])
    return m, a[1] * math.exp(a[0] - m) + b[1] * math.exp(b[0] - m)


def online_merge(mine: tuple[float, ...] = (1.0, 3.0, 2.0, 5.0),
                 theirs: tuple[float, ...] = (4.0, 0.5, 6.0, 2.5)) -> Figure:
    """Two work-items' columns of one row: under each value, the pair (m, s) after it (red where
    the maximum grew and the sum was rescaled); then the merge of the two pairs, and the check
    that it is the sum of exp(x - max) over all the values."""
    fig, ax = _canvas(11, 3.8, (-3.5, 2 * len(mine) + 10.5), (-2.6, 4.2),
                      "The online softmax: one pass keeps the maximum and the sum together")
    ends = []
    for k, (values, y) in enumerate(((mine, 2.2), (theirs, 0.0))):
        ax.text(-0.3, y + 0.45, f"work-item {k}", ha="right", va="center", fontsize=8)
        previous = -math.inf
        for i, (v, (m, s)) in enumerate(zip(values, online_pairs(list(values)), strict=True)):
            grew = m > previous and i > 0
            _box(ax, 2 * i, y + 0.55, 1.8, 0.8, f"x = {v:g}", BLUE, edge="white", size=7.5,
                 alpha=0.35, gid=f"online:{k}:{i}")
            ax.text(2 * i + 0.9, y + 0.3, f"m {m:g}, s {s:.3g}", ha="center", va="top",
                    fontsize=7, color=RED if grew else BLACK)
            previous = m
        ends.append((m, s))
    m, s = merged(*ends)
    x0 = 2 * len(mine) + 1.0
    _box(ax, x0, 0.9, 8.5, 1.5, f"merge: m = max({ends[0][0]:g}, {ends[1][0]:g}) = {m:g}\n"
         f"s = {ends[0][1]:.3g} exp({ends[0][0]:g} - {m:g}) + {ends[1][1]:.3g} "
         f"exp({ends[1][0]:g} - {m:g}) = {s:.4g}", ORANGE, edge="white", size=7.5, alpha=0.4)
    direct = sum(math.exp(v - m) for v in (*mine, *theirs))
    ax.text(-3.3, -1.2, f"Red: the maximum grew, so the sum so far was multiplied by exp(m_old - "
            f"m_new) first. Check: the sum of exp(x - {m:g}) over all {len(mine) + len(theirs)} "
            f"values is {direct:.4g}, the merged s.", fontsize=8, va="center")
    ax.text(-3.3, -2.1, "In a work-group the tree merges such pairs, a barrier after each step.",
            fontsize=8, va="center")
    return finish(fig)

# }}}
