"""Concept diagrams: static matplotlib figures that explain an idea where a notebook introduces it,
drawn in the course's chart style (:mod:`helpers.chartstyle`). Nothing here measures or runs a
kernel; every number a diagram writes (ids, sectors, banks, the idle fraction, the ridge point) is
computed from its arguments, so the figure is right by construction.

Contents: :func:`host_and_device`, :func:`ndrange`, :func:`warps_and_divergence`,
:func:`coalescing`, :func:`banks`, :func:`reduction_tree`, :func:`tile_with_halo`,
:func:`shrinking_tile`, :func:`occupancy_and_latency`, :func:`roofline`, :func:`scalar_and_vliw`.
Each returns a Figure.
"""

from __future__ import annotations

import math
from collections import Counter

import matplotlib.pyplot as plt
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from .chartstyle import finish, legend_outside, palette, plain_number
from .drawing import BLACK, BLUE, GREEN, GREY, ORANGE, PALE, PINK, RED, SKY, YELLOW  # noqa: F401
from .drawing import arrow as _arrow
from .drawing import box as _box
from .drawing import canvas as _canvas
from .drawing import faded as _faded
from .drawing import pair as _pair

# {{{ drawing helpers


# }}}

# {{{ host and device


def host_and_device() -> Figure:
    """The host (a CPU running Python and pyopencl) and the device (compute units, global memory)
    in one context; the command queue carries the three steps of every run: write, launch, read."""
    fig, ax = _canvas(11, 5.6, (0, 100), (0, 62),
                      "Host and device: the host enqueues commands, the device runs them")
    _box(ax, 1, 1, 98, 55, color="none", ls="--", edge=GREY)
    ax.text(3, 53.5, "context (cl.Context): the device, and the buffers and programs made for it",
            fontsize=9, color="#555555")
    _box(ax, 3, 4, 27, 46, color="#e8f1f8", edge=BLUE, lw=1.8)
    ax.text(16.5, 47.5, "HOST: CPU\nPython + pyopencl", ha="center", va="top", fontsize=10,
            weight="bold", color=BLUE)
    _box(ax, 5, 31, 23, 8, "host arrays a_np, b_np\n(numpy, host memory)", "white", size=8)
    _box(ax, 5, 15, 23, 8, "prg = cl.Program(ctx, src)\n.build()\nknl = prg.my_kernel",
         "white", size=7.5)
    _box(ax, 5, 6, 23, 7, "queue =\ncl.CommandQueue(ctx)", "white", size=7.5)
    _box(ax, 70, 4, 27, 46, color="#fdf3e1", edge=ORANGE, lw=1.8)
    ax.text(83.5, 47.5, "DEVICE: e.g. a GPU", ha="center", va="top", fontsize=10,
            weight="bold", color="#a06000")
    _box(ax, 72, 30, 23, 11, "global memory\nbuffers a_g, b_g\n(cl.Buffer)", "white", size=8)
    for k in range(4):
        _box(ax, 72 + 5.9 * k, 8, 5.3, 14, f"compute\nunit\n{k}\n\nlocal\nmemory", "white",
             size=6)
    ax.text(83.5, 6.5, "the kernel runs here as work-items", ha="center", va="top", fontsize=7)
    _arrow(ax, (83.5, 22.5), (83.5, 29.5), "", GREY, arrowstyle="<|-|>")
    _arrow(ax, (28, 38), (72, 38), "1. write: cl.enqueue_copy(queue, a_g, a_np)", BLUE,
           offset=(0, 0.6))
    _arrow(ax, (72, 33), (28, 33), "", RED)
    ax.text(50, 32.2, "3. read: cl.enqueue_copy(queue, b_np, b_g)", color=RED, fontsize=8.5,
            ha="center", va="top")
    _arrow(ax, (28, 18), (72, 18), "2. launch: knl(queue, global_size, local_size, a_g, b_g)",
           GREEN, offset=(0, 0.6))
    ax.text(50, 9.5, "every command goes through the queue, in order:\n"
            "write, then launch, then read", ha="center", va="center", fontsize=8.5,
            color="#555555")
    return finish(fig)

# }}}

# {{{ NDRange


def work_item_ids(global_size: tuple[int, ...], local_size: tuple[int, ...],
                  item: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
    """The ids OpenCL gives the work-item at global id ``item``: ``get_group_id``,
    ``get_local_id`` and ``get_num_groups`` in each dimension."""
    if len(global_size) != len(local_size) or len(item) != len(global_size):
        raise ValueError("global size, local size and the work-item need as many dimensions")
    if any(g % lo for g, lo in zip(global_size, local_size, strict=True)):
        raise ValueError(f"the local size {_pair(local_size)} must divide the global size "
                         f"{_pair(global_size)}")
    if any(not 0 <= i < g for i, g in zip(item, global_size, strict=True)):
        raise ValueError(f"the work-item {_pair(item)} lies outside {_pair(global_size)}")
    return {"global": tuple(item),
            "group": tuple(i // lo for i, lo in zip(item, local_size, strict=True)),
            "local": tuple(i % lo for i, lo in zip(item, local_size, strict=True)),
            "groups": tuple(g // lo for g, lo in zip(global_size, local_size, strict=True))}


def ndrange(global_size: tuple[int, int] = (16, 8), local_size: tuple[int, int] = (4, 4),
            highlight: tuple[int, int] = (5, 2)) -> Figure:
    """A 2-D NDRange cut into work-groups (dimension 0 across, dimension 1 down); the work-item at
    global id ``highlight`` outlined, with its global, group and local ids written beside."""
    ids = work_item_ids(global_size, local_size, highlight)
    (gx, gy), (lx, ly), (hx, hy) = global_size, local_size, highlight
    cell = min(0.45, 7.0 / gx, 5.0 / gy)
    fig, ax = plt.subplots(figsize=(gx * cell + 5.4, gy * cell + 1.6))
    colors = [PALE, "#dbe9f6"]
    for y in range(gy):
        for x in range(gx):
            group = (x // lx + y // ly) % 2
            ax.add_patch(Rectangle((x, y), 1, 1, facecolor=colors[group], edgecolor="white"))
    for x in range(0, gx + 1, lx):
        ax.plot([x, x], [0, gy], color=ORANGE, lw=2.2)
    for y in range(0, gy + 1, ly):
        ax.plot([0, gx], [y, y], color=ORANGE, lw=2.2)
    if lx * cell >= 0.8:
        for y in range(0, gy, ly):
            for x in range(0, gx, lx):
                row = y + ly // 2   # the label's row: not the pink work-item's
                if (x // lx, y // ly) == ids["group"] and row == hy:
                    row = y if hy - y >= ly / 2 else y + ly - 1
                ax.text(x + lx / 2, row + 0.5, f"group ({x // lx}, {y // ly})", ha="center",
                        va="center", fontsize=7, color="#777777")
    ax.add_patch(Rectangle((hx, hy), 1, 1, facecolor=PINK, edgecolor=BLACK, lw=2, zorder=5))
    ax.set_xlim(0, gx)
    ax.set_ylim(gy, 0)
    ax.set_aspect("equal")
    ax.set_xticks([x + 0.5 for x in range(gx)], [str(x) for x in range(gx)], fontsize=7)
    ax.set_yticks([y + 0.5 for y in range(gy)], [str(y) for y in range(gy)], fontsize=7)
    ax.tick_params(length=0)
    ax.set_xlabel("dimension 0: get_global_id(0)")
    ax.set_ylabel("dimension 1: get_global_id(1)")
    ax.set_title(f"NDRange {gx} x {gy} in work-groups of {lx} x {ly}: "
                 f"{ids['groups'][0]} x {ids['groups'][1]} work-groups", fontsize=10)
    lines = [("global id", ids["global"]), ("group id", ids["group"]),
             ("local id", ids["local"])]
    ax.text(1.04, 0.95, "the pink work-item:", transform=ax.transAxes, fontsize=9,
            weight="bold", va="top")
    for k, (name, v) in enumerate(lines):
        ax.text(1.04, 0.80 - 0.13 * k, f"{name} {_pair(v)}", transform=ax.transAxes,
                fontsize=9.5, va="top", family="monospace")
    ax.text(1.04, 0.38, f"global = group x local size + local\n"
            f"{hx} = {ids['group'][0]} x {lx} + {ids['local'][0]},  "
            f"{hy} = {ids['group'][1]} x {ly} + {ids['local'][1]}",
            transform=ax.transAxes, fontsize=8.5, va="top")
    return finish(fig)

# }}}

# {{{ warps and divergence


def warps_and_divergence(warp: int = 8) -> Figure:
    """One warp of ``warp`` lanes running ``if (lane % 2 == 0) a(); else b();``: the two paths
    run one after the other, each with the other path's lanes switched off (grey)."""
    if warp < 2:
        raise ValueError("a warp of at least two lanes diverges")
    steps = [("if (lane % 2 == 0)\n    x = a(x);", lambda k: k % 2 == 0, BLUE),
             ("else\n    x = b(x);", lambda k: k % 2 == 1, ORANGE),
             ("y[i] = x;  (paths join)", lambda k: True, GREEN)]
    fig, ax = _canvas(max(9.0, 0.55 * warp + 4.5), 3.8, (-5.2, warp + 3.6), (-1.4, 4.2),
                      f"A warp of {warp} lanes shares one instruction stream: "
                      "a branch that splits it runs both paths, one after the other")
    for k in range(warp):
        ax.text(k + 0.5, 3.3, f"lane\n{k}", ha="center", va="bottom", fontsize=7.5)
    active = 0
    for row, (code, takes, color) in enumerate(steps):
        y = 2.0 - 1.2 * row
        ax.text(-5.0, y + 0.45, code, ha="left", va="center", fontsize=8.5, family="monospace")
        for k in range(warp):
            on = takes(k)
            active += on if row < 2 else 0
            _box(ax, k + 0.06, y, 0.88, 0.9, "run" if on else "idle", color if on else GREY,
                 edge="white", size=7, alpha=0.85 if on else 0.6)
        ax.text(warp + 0.3, y + 0.45, f"step {row + 1}", va="center", fontsize=8.5)
    share = active / (2 * warp)
    ax.text(-5.0, -1.0, f"The branch takes 2 steps where 1 would do if every lane took the same "
            f"path: {active} of {2 * warp} lane-steps do work ({share:.0%}).",
            fontsize=9, va="center")
    ax.annotate("time", xy=(warp + 2.9, -0.6), xytext=(warp + 2.9, 3.0), ha="center",
                fontsize=8, arrowprops={"arrowstyle": "-|>", "color": BLACK})
    return finish(fig)

# }}}

# {{{ coalescing


def sectors(stride: int, lanes: int = 32, width: int = 4, sector: int = 32) -> list[int]:
    """The 32-byte sectors (address // 32) that ``lanes`` lanes touch when lane ``k`` reads the
    ``width``-byte element ``k * stride``, in order of first touch."""
    return list(dict.fromkeys(k * stride * width // sector for k in range(lanes)))


def _coalescing_row(ax, y: float, name: str, stride: int, lanes: int = 32) -> int:
    """One pattern: lanes on top, their addresses, and below them the sectors they fall in."""
    touched = sectors(stride, lanes)
    where = {s: k for k, s in enumerate(touched)}
    w = lanes / len(touched)
    for k in range(lanes):
        _box(ax, k + 0.05, y, 0.9, 0.9, str(k), "#dbe9f6", edge=BLUE, size=6.5)
        ax.text(k + 0.5, y - 0.15, str(4 * k * stride), ha="center", va="top", fontsize=6.5,
                rotation=90)
    for k, s in enumerate(touched):
        _box(ax, k * w + 0.05, y - 4.2, w - 0.1, 0.9, f"sector {s}: bytes {s * 32}-{s * 32 + 31}"
             if w >= 6 else str(s), "#fdf3e1", edge=ORANGE, size=7 if w >= 1 else 5)
    for k in range(lanes):
        s = k * stride * 4 // 32
        ax.plot([k + 0.5, where[s] * w + w / 2], [y - 1.35, y - 3.3], color=GREY, lw=0.7)
    useful = lanes * 4 / (len(touched) * 32)
    step = "float i" if stride == 1 else f"float {stride} x i"
    ax.text(0, y + 1.35, f"{name}: lane i reads {step} (byte address {4 * stride} x i): "
            f"{len(touched)} sectors of 32 bytes, {plain_number(round(100 * useful, 1))}% of the "
            "bytes fetched are used",
            fontsize=9.5, weight="bold")
    return len(touched)


def coalescing(pattern: str = "both", stride: int = 32) -> Figure:
    """The 32 lanes of a warp reading 4-byte floats, their byte addresses, and the 32-byte sectors
    those fall in (address // 32): neighbouring floats take 4 sectors, floats ``stride`` apart
    take one each (32 for a stride of 8 floats or more). ``pattern``: "contiguous", "strided" or
    "both" (one row each)."""
    rows = {"contiguous": [("contiguous", 1)], "strided": [("strided", stride)],
            "both": [("contiguous", 1), ("strided", stride)]}
    if pattern not in rows:
        raise ValueError('pattern is "contiguous", "strided" or "both"')
    chosen = rows[pattern]
    height = 7.2 * len(chosen)
    fig, ax = _canvas(11.5, 1.7 * len(chosen) + 1.4, (-3.2, 32.5), (-1.2, height + 0.4),
                      "One warp, one load instruction: the memory system moves whole "
                      "32-byte sectors")
    counts = {}
    for k, (name, s) in enumerate(chosen):
        y = height - 2.4 - 7.2 * k
        ax.text(-0.4, y + 0.45, "lane", ha="right", va="center", fontsize=7.5)
        ax.text(-0.4, y - 0.7, "byte\naddress", ha="right", va="center", fontsize=7.5)
        ax.text(-0.4, y - 3.75, "sector\n(address\n// 32)", ha="right", va="center",
                fontsize=7.5)
        counts[name] = _coalescing_row(ax, y, name, s)
    said = " and ".join(f"{c}" for c in counts.values())
    ax.text(0, -1.0, f"The warp model (docs/warp-model.md) counts the same thing: "
            f"global_sectors_per_request = {said}.", fontsize=8.5, color="#555555")
    return finish(fig)

# }}}

# {{{ banks


def bank_hits(columns: int = 32, padding: int = 0, column: int = 0, rows: int = 32,
              nbanks: int = 32, skew: bool = False) -> Counter:
    """bank -> how many lanes of a warp hit it when lane ``r`` reads ``tile[r][column]`` of a
    tile stored with ``columns + padding`` floats per row: bank = (r * (columns + padding) +
    column) % 32; with ``skew``, the rows rotated: column c of row r stored at (c + r) % columns."""
    return Counter((r * (columns + padding) + ((column + r) % columns if skew else column))
                   % nbanks for r in range(rows))


def banks(columns: int = 32, padding: int = 0, column: int = 0, skew: bool = False) -> Figure:
    """A 32 x ``columns`` tile of floats in local memory as stored, each cell coloured by its bank;
    a warp reads down column ``column`` (lane r reads row r; outlined). Unpadded, the column sits in
    one bank (a 32-way conflict); a padding of 1 float per row spreads it over 32 banks; so does
    ``skew``, unpadded: row r rotated by r places, the column's floats on a diagonal."""
    rows, width = 32, columns + padding
    hits = bank_hits(columns, padding, column, skew=skew)
    degree = max(hits.values())
    colors = palette(32)
    place = [(column + r) % columns if skew else column for r in range(rows)]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 5.6), width_ratios=[1.15, 1])
    image = [[_faded(colors[(r * width + c) % 32], 1.0 if c == place[r] else 0.3)
              for c in range(columns)] for r in range(rows)]
    ax.imshow(image, extent=(0, columns, rows, 0), interpolation="nearest")
    if padding:
        ax.add_patch(Rectangle((columns, 0), padding, rows, facecolor=PALE, edgecolor="#999999",
                               hatch="////", lw=0.5))
    for r in range(rows):
        bank = (r * width + place[r]) % 32
        ax.text(place[r] + 0.5, r + 0.5, str(bank), ha="center", va="center", fontsize=5.5,
                color="white" if sum(to_rgb(colors[bank])) < 1.3 else BLACK)
        if skew:
            ax.add_patch(Rectangle((place[r], r), 1, 1, fill=False, edgecolor=BLACK, lw=1.2))
    if not skew:
        ax.add_patch(Rectangle((column, 0), 1, rows, fill=False, edgecolor=BLACK, lw=2))
    ax.set_xlim(0, width)
    ax.set_ylim(rows, 0)
    ax.set_aspect("equal")
    ticks = [] if skew else [(column + 0.5, f"column {column}\n(read by the warp)")]
    if padding:
        ticks.append((columns + padding / 2, "padding"))
    ax.xaxis.tick_top()
    ax.set_xticks([t for t, _ in ticks], [name for _, name in ticks], fontsize=7.5)
    ax.set_yticks([0.5, rows - 0.5], ["row 0 (lane 0)", f"row {rows - 1} (lane {rows - 1})"],
                  fontsize=7)
    ax.tick_params(length=0)
    pad_text = f" + {padding} padding" if padding else ""
    ax.set_xlabel(f"tile[32][{columns}], rows skewed: column {column} (outlined, read by the warp) "
                  f"of row r stored at\nr x {columns} + ({column} + r) % {columns}; colour = bank"
                  if skew else f"tile[32][{columns}{pad_text}]: colour = bank, "
                  f"bank = (row x {width} + column) % 32", fontsize=9)
    bx.bar(range(32), [hits.get(b, 0) for b in range(32)], color=[colors[b] for b in range(32)],
           edgecolor=BLACK, lw=0.5)
    top = max(hits, key=lambda b: (hits[b], -b))
    bx.text(top, hits[top] + 0.5, f"{hits[top]} lane{'s' if hits[top] > 1 else ''}",
            ha="center", va="bottom", fontsize=8)
    bx.set_xlim(-0.7, 31.7)
    bx.set_ylim(0, 34)
    bx.set_xticks([0, 8, 16, 24, 31])
    bx.set_xlabel("bank")
    bx.set_ylabel("lanes of the warp reading it")
    verdict = (f"a {degree}-way conflict: the reads take {degree} turns" if degree > 1
               else "no conflict: one lane per bank, one turn")
    bx.set_title(f"The warp reads column {column}: {len(hits)} "
                 f"bank{'s' if len(hits) > 1 else ''} hit\n{verdict}", fontsize=9.5)
    bx.spines[["top", "right"]].set_visible(False)
    return finish(fig)

# }}}

# {{{ reduction tree


def reduction_tree(n: int = 16) -> Figure:
    """A work-group of ``n`` work-items sums ``scratch[0..n)`` in local memory (sequential
    addressing, as in parallel_sum): at each level the work-items ``lid < s`` add
    ``scratch[lid + s]``, ``s`` halving, with a barrier between levels."""
    if n < 2 or n & (n - 1):
        raise ValueError("n is a power of two, at least 2")
    values = list(range(1, n + 1))
    levels = int(math.log2(n))
    cell = min(0.5, 7.5 / n)
    fig, ax = _canvas(cell * n + 3.4, 0.9 * levels + 2.2, (-0.2, n + 3.4 / cell),
                      (-1.6, 2 * levels + 1.5),
                      f"A work-group of {n} sums its values in local memory: "
                      f"{levels} levels, a barrier after each")
    s = n
    for level in range(levels + 1):
        y = 2 * (levels - level)
        for i in range(n):
            on = i < s
            _box(ax, i + 0.05, y, 0.9, 0.9, str(values[i]), "#dbe9f6" if on else PALE,
                 edge=BLUE if on else GREY, size=7 if values[i] < 1000 else 5.5)
        if level == 0:
            ax.text(n + 0.3, y + 0.45, "scratch[lid] = value", va="center", fontsize=8.5)
        else:
            ax.text(n + 0.3, y + 0.45, f"s = {s}: {s} work-item{'s' if s > 1 else ''} active",
                    va="center", fontsize=8.5)
        if level == levels:
            break
        s //= 2
        ax.plot([0, n], [y - 0.45, y - 0.45], color=RED, ls="--", lw=1)
        ax.text(n + 0.3, y - 0.45, "barrier(CLK_LOCAL_MEM_FENCE)", va="center", fontsize=7,
                color=RED)
        for i in range(s):
            for j in (i, i + s):
                ax.plot([j + 0.5, i + 0.5], [y, y - 1.1], color=BLUE, lw=0.8)
            values[i] += values[i + s]
    ax.text(0, -1.2, f"if (lid < s) scratch[lid] += scratch[lid + s];   "
            f"scratch[0] = {values[0]}: the work-group's sum", fontsize=9, family="monospace")
    return finish(fig)

# }}}

# {{{ tile with halo


def tile_with_halo(tile: int = 8, radius: int = 2, item: int = 0) -> Figure:
    """1-D erosion with local memory: a work-group of ``tile`` work-items copies its ``tile``
    elements and a halo of ``radius`` on each side (elements its neighbours own) into
    ``__local float tile[tile + 2 radius]``; work-item ``item`` then reads its window of
    2 radius + 1 from there."""
    if tile < 1 or radius < 0 or not 0 <= item < tile:
        raise ValueError("tile >= 1, radius >= 0 and 0 <= item < tile")
    width = tile + 2 * radius
    extra = max(2, radius)
    start = -radius - extra
    fig, ax = _canvas(max(9.0, 0.5 * (width + 2 * extra) + 3), 4.2,
                      (start - 5.5, tile + radius + extra + 0.5), (-2.2, 6.2),
                      f"A tile of {tile} elements and a halo of {radius} on each side: "
                      f"__local float tile[{width}]")
    ax.text(start - 5.3, 4.45, "global memory\nin[]", va="center", fontsize=8.5)
    for j in range(start, tile + radius + extra):
        mine, halo = 0 <= j < tile, -radius <= j < tile + radius
        color = BLUE if mine else ORANGE if halo else PALE
        _box(ax, j + 0.05, 4, 0.9, 0.9, str(tile + j), color, edge="white", size=7,
             alpha=0.75 if halo else 1)
    ax.text(tile / 2, 5.3, "this work-group's elements", ha="center", fontsize=8.5, color=BLUE)
    for side in (-radius / 2, tile + radius / 2):
        if radius:
            ax.text(side, 5.3, "halo", ha="center", fontsize=8.5, color="#a06000")
    ax.text(start - 5.3, 1.45, "local memory\ntile[]", va="center", fontsize=8.5)
    for k in range(width):
        j = k - radius
        _box(ax, j + 0.05, 1, 0.9, 0.9, str(k), BLUE if 0 <= j < tile else ORANGE,
             edge="white", size=7, alpha=0.75)
        ax.plot([j + 0.5, j + 0.5], [4, 1.9], color=GREY, lw=0.7)
    window = (item - radius, item + radius)
    ax.add_patch(Rectangle((window[0], 0.9), window[1] - window[0] + 1, 1.1, fill=False,
                           edgecolor=PINK, lw=2.2))
    ax.text(item + 0.5, 0.5, f"work-item {item} reads tile[{item}..{item + 2 * radius}]",
            ha="center", va="top", fontsize=8.5, color=PINK)
    ax.text(start - 5.3, -1.4, f"The tile holds {tile} + 2 x {radius} = {width} floats. Each "
            f"comes from global memory once and is read up to {2 * radius + 1} times from local "
            "memory;\na barrier between the copy and the reads makes every element written "
            f"before any work-item reads it. Shown: work-group 1, in[{tile}..{2 * tile - 1}].",
            fontsize=8.5, va="center")
    legend_outside(ax, handles=[Patch(color=BLUE, label="the work-group's own"),
                                Patch(color=ORANGE, alpha=0.75, label="halo (neighbours')")])
    return finish(fig)


def shrinking_tile(block: int = 8, steps: int = 2) -> Figure:
    """The 2-D stencil of notebook 10 stepped ``steps`` times in local memory: a ``block`` x
    ``block`` work-group loads ``block`` x ``block`` cells, one a work-item, its inner cells and a
    halo of ``steps`` around them. A cell's new value needs its four neighbours' old ones, so each
    step spoils the outermost ring still right (its outside neighbours are not in the tile); after
    ``steps`` steps the inner ``block - 2 steps`` square alone is right and written back. Each cell
    of the halo shows the step after which it is wrong."""
    inner = block - 2 * steps
    if steps < 0 or inner < 1:
        raise ValueError("steps >= 0 and block - 2 x steps >= 1")
    fig, ax = _canvas(max(7.5, 0.55 * block + 5.5), max(4.6, 0.55 * block + 1.8),
                      (-0.5, block + 0.5 + 0.6 * block), (block + 0.5, -1.3),
                      f"A {block} x {block} work-group, {steps} steps per launch: "
                      f"{inner} x {inner} cells written back")
    shades = [_faded(ORANGE, 0.95 - 0.6 * d / max(1, steps)) for d in range(max(1, steps))]
    for y in range(block):
        for x in range(block):
            ring = min(x, y, block - 1 - x, block - 1 - y)
            if ring >= steps:
                _box(ax, x + 0.04, y + 0.04, 0.92, 0.92, "", BLUE, edge="white", alpha=0.8)
            else:
                _box(ax, x + 0.04, y + 0.04, 0.92, 0.92, str(ring + 1), shades[ring],
                     edge="white", size=7.5)
    ax.add_patch(Rectangle((steps, steps), inner, inner, fill=False, edgecolor=BLACK, lw=2))
    ax.text(block / 2, -0.45, "one work-item per cell: tile[ly][lx]", ha="center", fontsize=8.5)
    ax.text(block + 0.6, 0.2,
            f"Loaded: {block} x {block} cells, the\n{inner} x {inner} inner ones and a halo\n"
            f"of {steps} around them.\n\n"
            "Each step needs the four\nneighbours' values of the step\nbefore: the outermost "
            "ring still\nright turns wrong (number: the\nstep after which it is wrong).\n\n"
            f"After {steps} steps only the inner\ncells are right: they go back to\n"
            f"global memory. Neighbouring\nwork-groups overlap by 2 x {steps} cells.",
            va="top", fontsize=8.5)
    legend_outside(ax, handles=[Patch(color=BLUE, alpha=0.8, label="inner: written back"),
                                Patch(color=ORANGE, alpha=0.8, label="halo: recomputed by "
                                                                     "neighbours")])
    return finish(fig)

# }}}

# {{{ occupancy and latency


def idle_fraction(warps: int, latency: float, work: float) -> float:
    """The share of cycles a compute unit issues nothing, in the steady state: each warp issues
    ``work`` cycles of instructions, then waits ``latency`` cycles for a load; the unit keeps busy
    while the other warps' work covers the wait (``warps x work >= work + latency``)."""
    return max(0.0, 1.0 - warps * work / (work + latency))


def _timeline(warps: int, latency: float, work: float, rounds: int):
    """Issue slots [(warp, start, end)] and waits [(warp, start, end)], round robin."""
    ready, done, t = [0.0] * warps, [0] * warps, 0.0
    issues, waits = [], []
    while any(d < rounds for d in done):
        w = min((w for w in range(warps) if done[w] < rounds), key=lambda w: (ready[w], w))
        start = max(t, ready[w])
        issues.append((w, start, start + work))
        waits.append((w, start + work, start + work + latency))
        ready[w], t = start + work + latency, start + work
        done[w] += 1
    return issues, waits


def occupancy_and_latency(warps: int = 3, latency: float = 40, work: float = 8,
                          rounds: int = 3) -> Figure:
    """A timeline of ``warps`` warps on one compute unit: each issues ``work`` cycles of
    instructions, then waits ``latency`` cycles for a load (long bar) while the others issue.
    With too few warps every one of them waits at once and the unit idles."""
    if warps < 1 or latency < 0 or work <= 0:
        raise ValueError("warps >= 1, latency >= 0, work > 0")
    issues, waits = _timeline(warps, latency, work, rounds)
    end = max(e for _, _, e in waits)
    idle = idle_fraction(warps, latency, work)
    need = math.ceil((work + latency) / work)
    fig, ax = plt.subplots(figsize=(10, 0.42 * warps + 2.6))
    for w, s, e in waits:
        ax.barh(warps - w, e - s, left=s, height=0.5, color=ORANGE, alpha=0.45)
    for w, s, e in issues:
        ax.barh(warps - w, e - s, left=s, height=0.5, color=BLUE)
    busy_until = 0.0
    for _, s, e in sorted((x for x in issues), key=lambda x: x[1]):
        if s > busy_until:
            ax.barh(0, s - busy_until, left=busy_until, height=0.5, color=RED)
        ax.barh(0, e - s, left=s, height=0.5, color=BLUE)
        busy_until = e
    ax.set_yticks(range(warps + 1), ["compute unit"] + [f"warp {w}" for w in
                                                        range(warps - 1, -1, -1)])
    ax.set_xlim(0, end)
    ax.set_xlabel("cycles")
    verdict = (f"it idles {idle:.0%} of the time" if idle > 0 else "it never idles")
    ax.set_title(f"{warps} warp{'s' if warps > 1 else ''}, {plain_number(work)} cycles of work "
                 f"each, then a load of {plain_number(latency)} cycles: {verdict}\n"
                 f"idle = max(0, 1 - warps x work / (work + latency)) = max(0, 1 - {warps} x "
                 f"{plain_number(work)} / {plain_number(work + latency)}) = {idle:.0%}; "
                 f"{need} warps would hide the latency", fontsize=9.5)
    legend_outside(ax, handles=[Patch(color=BLUE, label="issuing"),
                                Patch(color=ORANGE, alpha=0.45, label="waiting for memory"),
                                Patch(color=RED, label="unit idle")])
    ax.spines[["top", "right"]].set_visible(False)
    return finish(fig)

# }}}

# {{{ roofline

EXAMPLE_KERNELS = (("saxpy", 2 / 12), ("matrix-vector", 0.5), ("SGEMM, 32 x 32 tiles", 8.0),
                   ("SGEMM, 128 x 128 blocks", 32.0))


def roofline(bandwidth: float = 2000.0, peak: float = 50000.0,
             kernels: tuple[tuple[str, float], ...] = EXAMPLE_KERNELS) -> Figure:
    """The roofline: attainable GFLOP/s = min(peak, bandwidth x arithmetic intensity), the
    memory roof and the compute roof meeting at the ridge point (peak / bandwidth FLOP/byte);
    ``kernels`` (name, FLOP per byte) placed on it. The defaults are an example, not a device."""
    ridge = peak / bandwidth
    lo = min([ridge / 100] + [i / 2 for _, i in kernels])
    hi = max([ridge * 20] + [i * 2 for _, i in kernels])
    xs = [lo * (hi / lo) ** (k / 200) for k in range(201)]
    fig, ax = plt.subplots(figsize=(9, 4.8))
    ax.plot(xs, [min(peak, bandwidth * x) for x in xs], color=BLACK, lw=2)
    ax.plot([ridge, ridge], [lo * bandwidth / 2, peak], color=GREY, ls=":", lw=1)
    ax.text(ridge / 1.15, peak * 1.15, f"ridge point: {plain_number(float(f'{ridge:.3g}'))} "
            "FLOP/byte", ha="right", fontsize=8.5)
    at = ridge / 6
    ax.annotate(f"memory roof:\n{plain_number(bandwidth)} GB/s x intensity", xy=(at, bandwidth * at),
                xytext=(lo * 1.2, peak / 2), fontsize=8.5, va="top",
                arrowprops={"arrowstyle": "-|>", "color": "#555555"})
    ax.text(hi / 1.1, peak * 1.15, f"compute roof: {plain_number(peak)} GFLOP/s", ha="right",
            fontsize=8.5)
    for (name, i), color in zip(kernels, palette(len(kernels)), strict=True):
        attain = min(peak, bandwidth * i)
        side = "memory-bound" if i < ridge else "compute-bound"
        ax.plot([i], [attain], "o", color=color, markersize=8,
                label=f"{name}: {plain_number(float(f'{i:.3g}'))} FLOP/byte, {side}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(lo * bandwidth / 2, peak * 2.2)
    ax.set_xlabel("arithmetic intensity (FLOP per byte of global memory, log scale)")
    ax.set_ylabel("attainable GFLOP/s (log scale)")
    ax.set_title("The roofline (example numbers, not a measured device):\na kernel left of "
                 "the ridge point is memory-bound, right of it compute-bound", fontsize=9.5)
    ax.legend(loc="lower right", fontsize=8, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return finish(fig)

# }}}


# {{{ scalar and VLIW


def vliw_fill(independent: int, slots: int = 5) -> int:
    """The slots of a VLIW bundle a work-item fills with ``independent`` operations that do not
    depend on each other (a float kernel's chain: 1; a float4's four lanes: 4)."""
    return max(0, min(independent, slots))


def scalar_and_vliw(lanes: int = 8, slots: int = 5) -> Figure:
    """A scalar (SIMT) GPU's lanes each run one operation of their own work-item per instruction,
    whatever its type; a VLIW stream core (the Radeon HD 5870's five ALUs) issues one bundle of
    ``slots`` operations of one work-item, filled only by independent ones: a float kernel's chain
    fills one slot, a float4 kernel's four lanes fill four."""
    fig, ax = _canvas(9.5, 3.6, (-6.2, max(lanes, slots) + 3.2), (-0.3, 4.2),
                      "One instruction on a scalar GPU and on a VLIW5 GPU")
    ax.text(-6.0, 3.35, "Scalar (SIMT), NVIDIA:\nfloat or float4, every lane busy", fontsize=8.5,
            va="center")
    for k in range(lanes):
        _box(ax, k + 0.06, 2.9, 0.88, 0.9, f"item\n{k}", BLUE, edge="white", size=7, alpha=0.85)
    ax.text(lanes + 0.3, 3.35, f"{lanes} of {lanes} lanes", fontsize=8.5, va="center")
    for row, (label, independent) in enumerate((("float kernel", 1), ("float4 kernel", 4))):
        y = 1.4 - 1.5 * row
        used = vliw_fill(independent, slots)
        ax.text(-6.0, y + 0.45, f"VLIW{slots}, one work-item,\n{label}", fontsize=8.5,
                va="center")
        for k in range(slots):
            on = k < used
            _box(ax, k + 0.06, y, 0.88, 0.9, "fma" if on else "idle", ORANGE if on else GREY,
                 edge="white", size=7, alpha=0.85 if on else 0.6)
        ax.text(slots + 0.3, y + 0.45, f"{used} of {slots} slots ({used / slots:.0%})",
                fontsize=8.5, va="center")
    return finish(fig)

# }}}


# The technique diagrams (helpers/technique_diagrams.py), re-exported: notebooks call diagrams.NAME().
from .technique_diagrams import (halo_loading, matvec_group_per_row,  # noqa: E402,F401,I001
                                 privatized_histogram, reduction_steps, register_ring, sgemm_tiles,
                                 tiled_transpose)
# The capstone's diagrams (helpers/capstone.py), re-exported likewise.
from .capstone import online_merge, softmax_reads  # noqa: E402,F401,I001
