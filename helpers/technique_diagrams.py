"""Technique diagrams: how the solutions of the course's hardest exercises (solutions/*.cl) move
their data, drawn as those kernels do it, in the look of :mod:`helpers.diagrams`, which re-exports
every figure here (notebooks call ``diagrams.tiled_transpose()``). As there, nothing runs a kernel:
every owner, index and count a figure writes is computed from its arguments by the small functions
beside it (``halo_loads``, ``ring_slots``, ``active_items``...), which the tests check as well.

Contents: :func:`halo_loading` (erosion_1d_local), :func:`tiled_transpose` (transpose),
:func:`sgemm_tiles` (sgemm_tiled), :func:`privatized_histogram` (histogram),
:func:`register_ring` (spill_fix), :func:`reduction_steps` (parallel_sum),
:func:`matvec_group_per_row` (mat_vec_mul). Each returns a Figure.
"""

from __future__ import annotations

import math
import random
from collections import Counter

from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .chartstyle import finish, palette
from .drawing import BLACK, BLUE, GREEN, GREY, ORANGE, PALE, PINK, RED, SKY, YELLOW  # noqa: F401
from .drawing import arrow as _arrow
from .drawing import box as _box
from .drawing import canvas as _canvas

BARRIER = "barrier(CLK_LOCAL_MEM_FENCE)"

# {{{ drawing helpers

def _span(ax, x0: float, x1: float, y: float, text: str, color=BLACK, size: float = 7.5):
    """A bracket under cells ``x0..x1`` with ``text`` beneath it."""
    ax.plot([x0 + 0.1, x0 + 0.1, x1 - 0.1, x1 - 0.1], [y + 0.2, y, y, y + 0.2], color=color,
            lw=1)
    ax.text((x0 + x1) / 2, y - 0.12, text, ha="center", va="top", fontsize=size, color=color)


def _barrier(ax, x0: float, x1: float, y: float, size: float = 7.5) -> None:
    """The red dashed line of a barrier, named on the line."""
    ax.plot([x0, x1], [y, y], color=RED, ls="--", lw=1)
    ax.text((x0 + x1) / 2, y, BARRIER, ha="center", va="center", fontsize=size, color=RED,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1})

# }}}

# {{{ halo loading (erosion_1d_local)


def halo_loads(tile: int, radius: int, group: int = 0,
               n: int | None = None) -> list[tuple[int, int, int | None]]:
    """Slot by slot, how solutions/erosion_1d_local.cl fills work-group ``group``'s
    ``tile[tile + 2 radius]``: (the work-item that loads it, the pass of the strided loop
    ``for (k = lid; k < width; k += tile)`` that does, the element ``in[j]`` it holds, or None
    outside ``in[0..n)``, where it stores INFINITY). Slot k holds ``in[group x tile - radius + k]``;
    ``n`` defaults to two tiles past the group's start."""
    if tile < 1 or radius < 0 or group < 0:
        raise ValueError("tile >= 1, radius >= 0 and group >= 0")
    n = (group + 2) * tile if n is None else n
    start = group * tile - radius
    return [(k % tile, k // tile, start + k if 0 <= start + k < n else None)
            for k in range(tile + 2 * radius)]


def _halo_windows(ax, tile: int, radius: int, group: int, colors, y: float) -> None:
    """After the barrier: work-items 0 and tile - 1 each read their window of the tile."""
    shown = sorted({0, tile - 1})
    stacked = len(shown) > 1 and 2 * radius >= tile - 1   # windows that overlap: two lines
    for row, lid in enumerate(shown):
        inset = 0.05 + 0.08 * row
        ax.add_patch(Rectangle((lid + inset, y - 0.1 + inset), 2 * radius + 1 - 2 * inset,
                               1.0 - 2 * inset, fill=False, edgecolor=colors[lid], lw=2.4,
                               gid=f"window:{lid}"))
        at = y - 0.35 - (0.75 * row if stacked else 0)
        ax.text(lid + radius + 0.5, at, f"work-item {lid}: out[{group * tile + lid}] = "
                f"min(tile[{lid}..{lid + 2 * radius}])", ha="center", va="top", fontsize=7.5)


def halo_loading(tile: int = 8, radius: int = 2, group: int = 0, n: int | None = None) -> Figure:
    """Who loads what in erosion_1d_local (solutions/erosion_1d_local.cl): work-group ``group`` of
    ``tile`` work-items fills ``__local float tile[tile + 2 radius]`` with a strided loop, work-item
    ``lid`` loading slots ``lid``, ``lid + tile``, ... (so the halo on the right is loaded by
    work-items 0, 1, ..., not by the ones beside it); a slot outside ``in[0..n)`` gets INFINITY.
    A barrier, then each work-item reads its window ``tile[lid..lid + 2 radius]``."""
    loads = halo_loads(tile, radius, group, n)
    width, colors, first = len(loads), palette(tile), group * tile - radius
    fig, ax = _canvas(max(8.0, 0.5 * width + 4.0), 4.8, (-6.2, width + 0.3), (-1.8, 9.0),
                      f"erosion_1d_local: who loads work-group {group}'s "
                      f"__local float tile[{tile} + 2 x {radius}]")
    ax.text(-6.0, 7.0, "global memory\nin[j], j =", va="center", fontsize=8.5)
    for k, (_, _, j) in enumerate(loads):
        _box(ax, k + 0.05, 6.6, 0.9, 0.8, str(first + k), "white" if j is None else PALE,
             edge=GREY if j is None else BLACK, size=7, hatch="///" if j is None else None)
    _span(ax, radius, radius + tile, 8.2, "", BLUE)
    ax.text(radius + tile / 2, 8.5, f"work-group {group}'s own elements", ha="center",
            fontsize=8, color=BLUE)
    for x in ((radius / 2, width - radius / 2) if radius else ()):
        ax.text(x, 8.5, "halo", ha="center", fontsize=8, color="#a06000")
    ax.text(-6.0, 4.7, "local memory tile[k],\nloaded by work-item", va="center", fontsize=8.5)
    for k, (lid, _, j) in enumerate(loads):
        ax.plot([k + 0.5, k + 0.5], [6.6, 5.3], color=colors[lid], lw=1.4)
        _box(ax, k + 0.05, 4.2, 0.9, 1.1, f"w{lid}" + ("\n+inf" if j is None else ""),
             colors[lid], edge="white", size=7.5, alpha=0.75, gid=f"load:{k}")
        ax.text(k + 0.5, 4.1, str(k), ha="center", va="top", fontsize=6.5, color="#555555")
    ax.text(-0.2, 4.1, "k =", ha="right", va="top", fontsize=6.5, color="#555555")
    for p in range(loads[-1][1] + 1):
        _span(ax, p * tile, min(width, (p + 1) * tile), 3.3,
              f"pass {p + 1}: k = lid" + (f" + {p * tile}" if p else ""))
    _barrier(ax, 0, width, 2.3)
    ax.text(-6.0, 1.3, "then work-item lid\nreads tile[lid..lid + "
            f"{2 * radius}]", va="center", fontsize=8.5)
    for k in range(width):
        _box(ax, k + 0.05, 0.9, 0.9, 0.8, str(k), PALE, edge="white", size=6.5)
    _halo_windows(ax, tile, radius, group, colors, 1.0)
    ax.text(-6.0, -1.1, f"for (k = lid; k < {width}; k += {tile})   tile[k] = (0 <= j < n) ? "
            f"in[j] : INFINITY;   j = {first} + k\nhatched: outside the array; INFINITY (+inf) "
            "never wins a minimum, so the window is clipped to the data",
            fontsize=8, va="center", family="monospace")
    return finish(fig)

# }}}

# {{{ tiled transpose


def _grid(ax, x0: float, top: float, rows: int, cols: int, name: str, cell) -> None:
    """A ``rows`` x ``cols`` matrix, row 0 at the top, its top-left corner at (``x0``, ``top``);
    ``cell(r, c)`` gives (colour, text, gid), or None for a plain cell."""
    for r in range(rows):
        for c in range(cols):
            color, text, gid = cell(r, c) or (PALE, "", None)
            _box(ax, x0 + c, top - r - 1, 1, 1, text, color, edge=GREY if gid == "pad" else
                 "white", size=6.5, alpha=0.8 if gid else 1, gid=gid,
                 hatch="///" if gid == "pad" else None)
    ax.add_patch(Rectangle((x0, top - rows), cols, rows, fill=False, edgecolor=GREY,
                           gid=f"matrix:{name}"))


def tiled_transpose(tile: int = 4, padding: int = 1, group: tuple[int, int] = (2, 1)) -> Figure:
    """transpose through local memory (solutions/transpose.cl), on a 2T x 3T matrix (T = ``tile``):
    work-group ``group`` reads its T x T block of ``in`` row by row (work-item (lx, ly) reads
    ``in[by + ly][bx + lx]``: neighbours read neighbours), stores it as read in ``tile[T][T +
    padding]`` (the padding column hatched), and after a barrier writes ``out[bx + ly][by + lx] =
    tile[lx][ly]``: it reads the tile down its columns and writes rows of ``out``, coalesced again.
    Colour and letter follow each element's row of ``in``; the digit its column."""
    t, (gx, gy) = tile, group
    if not 1 <= t <= 8 or padding < 0 or not (0 <= gx < 3 and 0 <= gy < 2):
        raise ValueError("1 <= tile <= 8, padding >= 0, group within (3, 2) blocks")
    width, height, colors = 3 * t, 2 * t, palette(t)
    bx, by, x_tile = gx * t, gy * t, width + 5
    x_out, unit = x_tile + t + padding + 5, 0.3 if t <= 4 else 0.2

    def name(a, b):
        return f"{chr(65 + a)}{b}"
    fig, ax = _canvas(unit * (x_out + height + 1), unit * (width + 4.5) + 0.7,
                      (-0.5, x_out + height + 0.5), (-2.5, width + 1.9),
                      "transpose through a tile: rows of in go into the tile's rows, "
                      "the tile's columns go out as rows of out")
    ax.set_aspect("equal")
    _grid(ax, 0, width, height, width, "in", lambda r, c: (
        (colors[r - by], name(r - by, c - bx), f"in:{r - by},{c - bx}")
        if by <= r < by + t and bx <= c < bx + t else None))
    _grid(ax, x_tile, width, t, t + padding, "tile", lambda r, c: (
        (colors[r], name(r, c), f"tile:{r},{c}") if c < t else ("white", "", "pad")))
    _grid(ax, x_out, width, width, height, "out", lambda r, c: (
        (colors[c - by], name(c - by, r - bx), f"out:{c - by},{r - bx}")
        if bx <= r < bx + t and by <= c < by + t else None))
    for x, y, gid in ((bx, width - by, "block:in"), (x_tile, width, "block:tile"),
                      (x_out + by, width - bx, "block:out")):
        ax.add_patch(Rectangle((x, y - t), t, t, fill=False, edgecolor=BLACK, lw=2.2, gid=gid))
    _arrow(ax, (bx, width - by + 0.35), (bx + t, width - by + 0.35), lw=1)
    _arrow(ax, (x_tile, width + 0.35), (x_tile + t, width + 0.35), lw=1)
    _arrow(ax, (x_tile - 0.35, width), (x_tile - 0.35, width - t), lw=1, color=RED)
    _arrow(ax, (x_out + by, width - bx + 0.35), (x_out + by + t, width - bx + 0.35), lw=1,
           color=RED)
    _arrow(ax, (width + 0.3, width - by - t / 2), (x_tile - 0.9, width - t / 2), "1. rows in",
           size=7.5, offset=(-0.2, 1.6))
    _arrow(ax, (x_tile + t + padding + 0.3, width - t / 2), (x_out - 0.3, width - bx - t / 2),
           "3. rows out", size=7.5, offset=(1.7, 0.2), color=RED)
    for x, label in ((width / 2, "in (global memory)"), (x_tile + t / 2, "tile (local memory)"),
                     (x_out + height / 2, "out (global memory)")):
        ax.text(x, width + 1.0, label, ha="center", fontsize=8.5, weight="bold")
    pad = (f"hatched: {padding} float{'s' if padding > 1 else ''} of padding a row,\nso that "
           "a column's floats sit in\ndifferent banks (notebook 09)" if padding
           else "no padding: a column's floats\nmay share a bank (notebook 09)")
    for x, text in ((0, f"in: {height} x {width}, work-group ({gx}, {gy}):\nwork-item (lx, ly) "
                     f"reads\nin[{by} + ly][{bx} + lx] (black arrow):\nneighbours read "
                     "neighbours"),
                    (x_tile - 1.5, f"__local float tile[{t}][{t} + {padding}]\ntile[ly][lx] = "
                     f"what (lx, ly) read\n{pad}\n\n2. {BARRIER}\n\nthen (lx, ly) reads "
                     "tile[lx][ly]:\ndown a column (red arrow)"),
                    (x_out, f"out: {width} x {height}: (lx, ly) writes\nout[{bx} + ly][{by} + lx] "
                     "= tile[lx][ly] (red arrow):\nneighbours write neighbours")):
        ax.text(x, {0: t, x_tile - 1.5: width - t}.get(x, 0) - 0.6, text, va="top", fontsize=7.5)
    return finish(fig)

# }}}

# {{{ SGEMM tiles


def sgemm_tiles(t: int = 4, steps: int = 3) -> Figure:
    """sgemm_tiled (solutions/sgemm_tiled.cl): C = A x B with k = ``steps`` x ``t``; one work-group
    computes a ``t`` x ``t`` tile of C from its row band of A and column band of B, cut into
    ``t`` x ``t`` tiles that it walks along k, one colour per step. Each step loads one tile of A
    and one of B into local memory (each work-item one value of each), waits at a barrier, does
    ``t`` multiply-adds per work-item from the tiles, and waits again before the next load."""
    if t < 1 or steps < 1:
        raise ValueError("t >= 1 and steps >= 1")
    k, m, colors = steps * t, 3 * t, palette(steps)
    xc, top_b = k + 2, m + 2 + k           # C's left edge; B's top edge
    fig, ax = _canvas(0.2 * (xc + m + 23), 0.2 * (top_b + 5.2) + 0.6, (-0.5, xc + m + 22.5),
                      (-3.6, top_b + 1.6), f"sgemm_tiled: a work-group's {t} x {t} tile of C "
                      f"walks along k in {steps} steps of {t}")
    ax.set_aspect("equal")
    for x, y, w, h, label in ((0, 0, k, m, f"A: m x k = {m} x {k}"),
                              (xc, m + 2, m, k, f"B: k x n = {k} x {m}"),
                              (xc, 0, m, m, f"C = A x B: {m} x {m}")):
        _box(ax, x, y, w, h, color=PALE, edge=GREY)
        for v in range(t, w, t):
            ax.plot([x + v, x + v], [y, y + h], color="white", lw=1.2)
        for v in range(t, h, t):
            ax.plot([x, x + w], [y + v, y + v], color="white", lw=1.2)
        ax.text(x + w / 2, y - 0.3 if y == 0 else y + h + 0.3, label, ha="center",
                va="top" if y == 0 else "bottom", fontsize=8.5)
    for s in range(steps):
        for gid, x, y in ((f"A:{s}", s * t, m - 2 * t), (f"B:{s}", xc + t, top_b - (s + 1) * t)):
            _box(ax, x, y, t, t, f"{gid[0]} tile\nstep {s}", colors[s], edge=BLACK, size=7,
                 alpha=0.75, gid=gid)
    _box(ax, xc + t, m - 2 * t, t, t, "this\nwork-\ngroup's\ntile", "white", lw=2.2, size=6.5,
         gid="C")
    _arrow(ax, (0, m - 2 * t - 0.5), (k, m - 2 * t - 0.5), "k", offset=(0, -1.3), size=8)
    _arrow(ax, (xc + 2 * t + 0.5, top_b), (xc + 2 * t + 0.5, m + 2), "k", offset=(0.7, 0),
           size=8)
    x0 = xc + m + 1.5
    ax.text(x0, top_b - 0.4, "the work-group's loop over k0, in order:", fontsize=8,
            weight="bold", va="center")
    for s in range(steps):
        y = top_b - 1.0 - 2.6 * s
        _box(ax, x0, y - 2, 7, 2, f"step {s}, k0 = {s * t}: load\nA tile {s} -> a_tile\n"
             f"B tile {s} -> b_tile", colors[s], alpha=0.75, size=7)
        _box(ax, x0 + 7.5, y - 2, 2.8, 2, "barrier", "white", edge=RED, size=7)
        _box(ax, x0 + 10.8, y - 2, 6, 2, f"sum += {t} products\nfrom the tiles",
             colors[s], alpha=0.35, size=7)
        _box(ax, x0 + 17.3, y - 2, 2.8, 2, "barrier", "white", edge=RED, size=7)
    _box(ax, x0, top_b - 3.0 - 2.6 * steps, 20.1, 2, "c[row][col] = sum", "white", size=7.5)
    ax.text(-0.5, -2.3, f"Work-item (lx, ly) copies a[row][k0 + lx] and b[k0 + ly][col] into "
            f"the tiles, then adds a_tile[ly][j] * b_tile[j][lx] for j < {t}:\nevery value read "
            f"from global memory serves {t} multiply-adds. The second barrier keeps the next "
            "step's copies from overwriting tiles still being read.", fontsize=8, va="center")
    return finish(fig)

# }}}

# {{{ privatized histogram


def histogram_data(groups: int, bins: int, items: int, seed: int = 2) -> list[int]:
    """``groups`` x ``items`` values below ``bins``, low bins more frequent (as real data often
    is: the hot bins are where atomics queue); work-group g holds elements g x items onwards."""
    rng = random.Random(seed)
    return rng.choices(range(bins), weights=[bins - b for b in range(bins)], k=groups * items)


def histogram_atomics(data: list[int], groups: int, bins: int) -> dict:
    """The atomics of the two histograms: ``direct`` (one atomic_inc on global memory per
    element) and ``merged`` (solutions/histogram.cl: one atomic_add per bin and group whose
    count is not zero), with the longest queue on one global address of each, and ``local``:
    each group's counts."""
    items = len(data) // groups
    local = [[data[g * items:(g + 1) * items].count(b) for b in range(bins)]
             for g in range(groups)]
    per_bin = [sum(1 for row in local if row[b]) for b in range(bins)]
    return {"direct": len(data), "direct_queue": max(Counter(data).values()),
            "merged": sum(per_bin), "merged_queue": max(per_bin), "local": local}


def _stack(ax, x: float, y: float, colors, texts=None, kind: str = "", size: float = 0.8):
    """Squares piled up from (x, y), one per atomic on one address (its queue)."""
    for i, color in enumerate(colors):
        _box(ax, x, y + i * size, size * 0.95, size * 0.9, texts[i] if texts else "", color,
             edge="white", size=6.5, gid=kind)


def privatized_histogram(groups: int = 3, bins: int = 4, items: int = 8) -> Figure:
    """histogram drawn two ways on the same ``groups`` x ``items`` elements: left, every
    work-item increments the global bins directly (every atomic of the device queues on the same
    ``bins`` addresses); right, the solution (solutions/histogram.cl): each work-group counts in
    its own ``local_bins`` (its atomics queue only within the group), then adds each count to the
    global bins once. A square is one atomic on that address, coloured by work-group."""
    data = histogram_data(groups, bins, items)
    at, n, colors = histogram_atomics(data, groups, bins), len(data), palette(groups)
    right, slot = n + 5, n / bins
    fig, ax = _canvas(0.2 * (2 * n + 5) + 0.6, 6.0, (-0.5, 2 * n + 5.5), (-3.6, 16.6),
                      f"histogram: {n} elements in {groups} work-groups of {items}, "
                      f"{bins} bins; a square is one atomic on that address")
    for x0, title in ((0, "direct: every work-item increments the global bins"),
                      (right, "the solution: counts in local memory, merged once")):
        ax.text(x0 + n / 2, 15.6, title, ha="center", fontsize=9, weight="bold")
        for i, v in enumerate(data):
            _box(ax, x0 + i + 0.05, 13.2, 0.9, 0.9, str(v), colors[i // items], edge="white",
                 size=7, alpha=0.75)
        for g in range(groups):
            ax.text(x0 + (g + 0.5) * items, 14.3, f"work-group {g}", ha="center", fontsize=7.5)
        for b in range(bins):
            _box(ax, x0 + b * slot + 0.3, -0.1, slot - 0.6, 0.9, f"bins[{b}]", PALE, size=7.5)
    for i, v in enumerate(data):
        ax.plot([i + 0.5, v * slot + slot / 2], [13.2, 2.2 + 0.8 * data.count(v)], color=GREY,
                lw=0.6, zorder=0)
    for b in range(bins):
        mine = [colors[i // items] for i, v in enumerate(data) if v == b]
        _stack(ax, b * slot + slot / 2 - 0.4, 0.9, mine, kind="direct")
        ax.text(b * slot + slot / 2, 1.0 + 0.8 * len(mine), f"{len(mine)}", ha="center",
                va="bottom", fontsize=7.5)
    for g in range(groups):
        gx = right + g * items
        _box(ax, gx + 0.2, 6.2, items - 0.4, 6.3, color="none", edge=colors[g], lw=1.4)
        ax.text(gx + items / 2, 12.1, "local_bins", ha="center", va="top", fontsize=7.5)
        for b in range(bins):
            x = gx + 0.4 + b * (items - 0.8) / bins
            w = (items - 0.8) / bins
            _box(ax, x + 0.05, 6.4, w - 0.1, 0.7, str(b), "white", size=6.5)
            _stack(ax, x + w / 2 - 0.3, 7.2, [colors[g]] * at["local"][g][b], kind="local",
                   size=0.6)
            if at["local"][g][b]:
                _arrow(ax, (x + w / 2, 6.4), (right + b * slot + slot / 2, 3.7), color=colors[g],
                       lw=0.8, gid="merge")
    for b in range(bins):
        counts = [(colors[g], f"+{row[b]}") for g, row in enumerate(at["local"]) if row[b]]
        _stack(ax, right + b * slot + slot / 2 - 0.4, 0.9, [c for c, _ in counts],
               [s for _, s in counts], kind="merged")
    ax.text(0, -1.3, f"atomic_inc(&bins[v]) per element: {at['direct']} atomics on global "
            f"memory;\nup to {at['direct_queue']} queue on one address, from every work-group",
            fontsize=8, va="top")
    ax.text(right, -1.3, f"atomic_inc(&local_bins[v]), {BARRIER}, then one\natomic_add(&bins"
            f"[b], count) per bin and group: {at['merged']} on global memory;\nat most "
            f"{at['merged_queue']} queue on one address (a zero count is skipped)", fontsize=8,
            va="top")
    return finish(fig)

# }}}

# {{{ register ring (spill_fix)


def ring_slots(t: int, taps: int) -> list[int]:
    """After step ``t`` of fir_ring (``ring[t % taps] = x[t]``), the sample each slot holds: slot
    j holds the s in (t - taps, t] with s % taps == j."""
    return [t - (t - j) % taps for j in range(taps)]


def shift_registers(t: int, taps: int) -> list[int]:
    """After step ``t`` of spill_fix's solution (shift oldest first, then ``h0 = x[t]``), the
    sample each variable holds: h_k holds x[t - k]."""
    return [t - k for k in range(taps)]


def register_ring(taps: int = 4, steps: int = 3) -> Figure:
    """spill_fix's two ways of keeping a filter's last ``taps`` samples (the exercise has 8), over
    ``steps`` steps: fir_ring's ``float ring[taps]`` written at ``ring[t % taps]``, an index known
    only at run time, so on NVIDIA GPUs the array lives in memory (private memory, off-chip: 'local
    memory' in NVIDIA's words; AMD's and Intel's GPUs can index registers); and the solution's
    ``h0 .. h(taps-1)``, shifted by one every step (oldest first), whose names are fixed when the
    kernel is compiled, so each lives in a register. Colour follows the sample: in the ring it
    stays put, in the registers it moves along."""
    if taps < 2 or steps < 1:
        raise ValueError("taps >= 2 and steps >= 1")
    t0, w = taps, 1.6                             # the first step drawn; a cell's width
    colors = palette(taps + steps - 1)
    x_reg = taps * w + 9.5

    def color(s):
        return colors[s - (t0 - taps + 1)]
    fig, ax = _canvas(0.36 * (x_reg + taps * w + 8), 0.5 * (1.8 * steps + 3.6) + 0.6,
                      (-2.6, x_reg + taps * w + 7.5), (-2.2, 1.8 * steps + 1.4),
                      f"A filter's last {taps} samples: an array indexed at run time against "
                      f"{taps} named variables")
    for x0, head, title in (
            (0, [f"ring[{j}]" for j in range(taps)], f"fir_ring: ring[{taps}], in memory (NVIDIA)"),
            (x_reg, [f"h{j}" for j in range(taps)], f"the solution: h0 .. h{taps - 1}, "
             "in registers")):
        ax.text(x0, 1.8 * steps + 0.9, title, fontsize=9, weight="bold")
        for j, name in enumerate(head):
            ax.text(x0 + (j + 0.5) * w, 1.8 * steps + 0.1, name, ha="center", fontsize=7.5,
                    family="monospace")
    for r in range(steps):
        t, y = t0 + r, 1.8 * (steps - 1 - r)
        ax.text(-0.3, y + 0.45, f"t = {t}", ha="right", va="center", fontsize=8.5)
        for j, s in enumerate(ring_slots(t, taps)):
            _box(ax, j * w + 0.05, y, w - 0.1, 0.9, f"x[{s}]", color(s), edge="white", size=7.5,
                 alpha=0.8, gid=f"ring:{t}:{j}")
        ax.add_patch(Rectangle(((t % taps) * w + 0.05, y), w - 0.1, 0.9, fill=False, lw=2.2,
                               edgecolor=BLACK))
        ax.text(taps * w + 0.3, y + 0.45, f"ring[{t} % {taps}] = x[{t}]", va="center",
                fontsize=7.5, family="monospace")
        for j, s in enumerate(shift_registers(t, taps)):
            _box(ax, x_reg + j * w + 0.05, y, w - 0.1, 0.9, f"x[{s}]", color(s), edge="white",
                 size=7.5, alpha=0.8, gid=f"reg:{t}:{j}")
            if r and j:
                _arrow(ax, (x_reg + (j - 0.5) * w, y + 2.7 - 0.9), (x_reg + (j + 0.3) * w,
                       y + 0.95), color="#555555", lw=0.8)
        _arrow(ax, (x_reg - 1.6, y + 0.45), (x_reg - 0.05, y + 0.45), f"x[{t}]", size=7,
               offset=(-0.3, 0.05), lw=1)
    ax.text(0, -0.4, f"t % {taps} is known only at run time: on NVIDIA GPUs ring[] cannot be "
            f"{taps} registers,\nso it lives in memory (private memory, off-chip: 'local memory' "
            "in NVIDIA's words);\nevery read of acc += coef[k] * ring[(t - k) % "
            f"{taps}] is a load (AMD and Intel GPUs can index registers).", fontsize=7.5, va="top")
    shifts = "; ".join(f"h{j} = h{j - 1}" for j in range(taps - 1, 0, -1))
    ax.text(x_reg, -0.4, f"{shifts}; h0 = x[t];\n(oldest first). Every name is fixed when the "
            "kernel is compiled:\neach value lives in a register; acc = c0 * h0 + c1 * h1 + ...",
            fontsize=7.5, va="top")
    return finish(fig)

# }}}

# {{{ reduction steps


def active_items(n: int, s: int, scheme: str) -> list[int]:
    """The work-items that add ``scratch[lid + s]`` into ``scratch[lid]`` at step ``s`` of a tree
    over ``n`` values: ``interleaved`` (``lid % (2 s) == 0``, s = 1, 2, 4, ...: notebook 12's
    first rungs) or ``sequential`` (``lid < s``, s = n / 2, ..., 1: solutions/parallel_sum.cl)."""
    if scheme == "interleaved":
        return [lid for lid in range(n) if lid % (2 * s) == 0]
    if scheme == "sequential":
        return list(range(s))
    raise ValueError('scheme is "interleaved" or "sequential"')


def busy_warps(items: list[int], warp: int) -> int:
    """How many warps of ``warp`` work-items hold at least one of ``items``: each issues the step."""
    return len({lid // warp for lid in items})


def reduction_steps(n: int = 16, warp: int = 4) -> Figure:
    """The tree reduction of a work-group of ``n``, every step drawn both ways: interleaved
    addressing (``if (lid % (2 s) == 0)``, s = 1, 2, 4, ...), whose active work-items stay
    scattered over every warp (all diverge, all issue), and sequential addressing (``if (lid <
    s)``, s = n / 2, ..., 1, as in parallel_sum), whose active work-items are 0..s-1, packed in
    the first warps (the others skip the step whole). A cell is a work-item; ``+j`` means it adds
    ``scratch[j]``; warps of ``warp`` work-items (32 on NVIDIA), one colour per step."""
    if n < 2 or n & (n - 1) or warp < 1:
        raise ValueError("n is a power of two, at least 2, and warp >= 1")
    levels, nwarps = int(math.log2(n)), math.ceil(n / warp)
    colors, gap = palette(levels), 0.5

    def x(lid):
        return lid + gap * (lid // warp)
    span = x(n - 1) + 1
    fig, ax = _canvas(0.3 * (span + 13.5), 1.1 * levels + 2.5, (-3.0, span + 10.5),
                      (-1.8, 2 * (1.2 * levels + 1.6)),
                      f"One tree, two addressings: which of {n} work-items add at each step")
    totals = {}
    for p, (scheme, code, order) in enumerate((
            ("interleaved", "if (lid % (2 * s) == 0)", range(levels)),
            ("sequential", "if (lid < s)", range(levels - 1, -1, -1)))):
        top = (2 - p) * (1.2 * levels + 1.6) - 0.6
        ax.text(-3.0, top, f"{scheme}: {code} scratch[lid] += scratch[lid + s];", fontsize=8.5,
                family="monospace", weight="bold", va="center")
        for w in range(nwarps):
            ax.text(x(w * warp) + min(warp, n - w * warp) / 2, top - 0.7, f"warp {w}",
                    ha="center", fontsize=7, color="#555555", va="center")
        totals[scheme] = 0
        for row, level in enumerate(order):
            s, y = 2 ** level, top - 2.0 - 1.2 * row
            items = active_items(n, s, scheme)
            for lid in range(n):
                on = lid in items
                _box(ax, x(lid) + 0.05, y, 0.9, 0.9, f"+{lid + s}" if on else "",
                     colors[level] if on else GREY, edge="white", size=6.5,
                     alpha=0.85 if on else 0.5, gid=f"{scheme}:{s}:{lid}" if on else None)
            busy = busy_warps(items, warp)
            totals[scheme] += busy
            ax.text(-0.3, y + 0.45, f"s = {s}", ha="right", va="center", fontsize=8)
            ax.text(span + 0.4, y + 0.45, f"{len(items)} active, in {busy} of {nwarps} warps",
                    va="center", fontsize=8)
    ax.text(-3.0, -1.0, f"Warp-steps issued: interleaved {totals['interleaved']}, sequential "
            f"{totals['sequential']} (warps drawn as {warp} work-items; NVIDIA's have 32): a warp "
            "with one active work-item takes as long as a full one.\n(Packing interleaved "
            "work-items with index = 2 * s * lid removes the divergence but puts lanes 2s floats "
            "apart: a min(2s, 32)-way bank conflict.)", fontsize=7.5, va="center")
    return finish(fig)

# }}}

# {{{ matrix-vector: a work-group per row


def _matvec_tree(ax, group: int, x0: float, top: float, colors) -> float:
    """Inside one work-group: partial[lid] = its sum, then the tree with a barrier after each
    step; returns the y of partial[0] at the end."""
    ax.text(x0, top + 0.7, "work-group 0, row 0, in local memory:", fontsize=8, weight="bold")
    y = top - 0.9
    for lid in range(group):
        _box(ax, x0 + lid + 0.05, y, 0.9, 0.9, str(lid), colors[lid], edge="white", size=7,
             alpha=0.8)
    ax.text(x0 + group + 0.3, y + 0.45, "partial[lid] = its sum", va="center", fontsize=8)
    s = group // 2
    while s:
        _barrier(ax, x0 - 0.2, x0 + group + 6, y - 0.3, size=6.5)
        y -= 1.6
        for lid in range(group):
            on = lid < s
            _box(ax, x0 + lid + 0.05, y, 0.9, 0.9, f"+{lid + s}" if on else "",
                 colors[lid] if on else GREY, edge="white", size=7, alpha=0.8 if on else 0.5,
                 gid=f"tree:{s}:{lid}" if on else None)
        ax.text(x0 + group + 0.3, y + 0.45, f"s = {s}: lid < {s} adds partial[lid + {s}]",
                va="center", fontsize=8)
        s //= 2
    _barrier(ax, x0 - 0.2, x0 + group + 6, y - 0.3, size=6.5)
    return y


def matvec_group_per_row(rows: int = 3, width: int = 12, group: int = 4,
                         groups: int | None = None) -> Figure:
    """mat_vec_mul as solutions/mat_vec_mul.cl does it: work-group g takes rows g, g + ``groups``,
    ...; its work-item lid adds ``m[y][x] * v[x]`` for x = lid, lid + ``group``, ... (neighbours
    read neighbours: coalesced), stores its sum in ``partial[lid]``, the group adds the partials
    with a tree in local memory (a barrier after each step), and work-item 0 writes ``w[y]``. A
    cell's colour and number name the work-item that reads it."""
    groups = rows if groups is None else groups
    if rows < 1 or width < 1 or group < 1 or group & (group - 1) or groups < 1:
        raise ValueError("rows, width, groups >= 1 and group a power of two")
    colors, passes = palette(group), math.ceil(width / group)
    x_tree, top, vy = width + 4.6, rows * 1.2, -1.5
    bottom = min(vy - 2.4, top - 2.9 - 1.6 * int(math.log2(group)))
    fig, ax = _canvas(0.33 * (x_tree + group + 11.2), 0.45 * (top + 1.3 - bottom) + 0.6,
                      (-3.2, x_tree + group + 8), (bottom, top + 1.3),
                      f"mat_vec_mul: one work-group of {group} per row, then a tree in local "
                      "memory")
    for y in range(rows):
        ry = top - 1.2 * (y + 1)
        ax.text(-0.3, ry + 0.45, f"m row {y}:\nwork-group {y % groups}", ha="right",
                va="center", fontsize=7.5)
        for x in range(width):
            _box(ax, x + 0.05, ry, 0.9, 0.9, str(x % group), colors[x % group], edge="white",
                 size=7, alpha=0.8, gid=f"m:{y}:{x}")
        _box(ax, width + 0.8, ry, 1.6, 0.9, f"w[{y}]", "white", size=7.5, gid=f"w:{y}")
    ax.text(-0.3, vy + 0.45, "v", ha="right", va="center", fontsize=8.5)
    for x in range(width):
        _box(ax, x + 0.05, vy, 0.9, 0.9, str(x % group), colors[x % group], edge="white",
             size=7, alpha=0.8)
    for p in range(passes):
        _span(ax, p * group, min(width, (p + 1) * group), vy - 0.25,
              f"pass {p + 1}: x = lid" + (f" + {p * group}" if p else ""), size=7)
    end = _matvec_tree(ax, group, x_tree, top - 0.3, colors)
    _arrow(ax, (x_tree - 0.1, end + 0.45), (width + 2.5, top - 0.75))
    ax.text(x_tree, end - 0.7, "work-item 0 writes w[0] = partial[0]", va="top", fontsize=8)
    more = f"; with {groups} work-groups, group g takes rows g, g + {groups}, ..." \
        if groups < rows else ""
    ax.text(-3.2, vy - 1.5, f"Work-item lid adds m[y][x] * v[x] for x = lid, lid + {group}, "
            f"...: neighbours read neighbours (coalesced){more}.\nA cell's number and colour: the "
            "work-item (lid) that reads it.", fontsize=8, va="center")
    return finish(fig)

# }}}
