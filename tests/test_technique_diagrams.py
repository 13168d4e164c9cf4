"""The technique diagrams draw what the solutions do: who loads which halo slot, the same block at
transposed places, one colour per k-step on A's band and B's, atomics counted both ways, a ring
that stays put against registers that shift, packed against scattered work-items, a work-group per
row with its tree. Cells are found by the gid the module gives them."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from helpers import diagrams  # noqa: E402
from helpers import technique_diagrams as td  # noqa: E402

pytestmark = pytest.mark.once   # no device

NAMES = ("halo_loading", "tiled_transpose", "sgemm_tiles", "privatized_histogram",
         "register_ring", "reduction_steps", "matvec_group_per_row")


class Drawn:
    """A drawn figure: its words, and its patches and texts by gid."""

    def __init__(self, fig: Figure):
        self.fig = fig
        self.ax = fig.axes[0]
        texts = list(fig.texts) + [t for ax in fig.axes for t in ax.texts]
        self.words = "\n".join([t.get_text() for t in texts] + [ax.get_title() for ax in fig.axes])
        self.texts = [t.get_text() for t in texts]

    def patch(self, gid: str):
        found = [p for p in self.ax.patches if p.get_gid() == gid]
        assert len(found) == 1, (gid, len(found))
        return found[0]

    def patches(self, prefix: str) -> dict:
        return {p.get_gid(): p for p in self.ax.patches
                if p.get_gid() and p.get_gid().startswith(prefix)}

    def count(self, gid: str) -> int:
        return sum(p.get_gid() == gid for p in self.ax.patches)

    def text(self, gid: str) -> str:
        found = [t.get_text() for t in self.ax.texts if t.get_gid() == gid]
        assert len(found) == 1, (gid, found)
        return found[0]

    def color(self, gid: str) -> tuple:
        return tuple(self.patch(gid).get_facecolor())

    def corner(self, gid: str) -> tuple[float, float]:
        x, y = self.patch(gid).get_xy()
        return round(x, 6), round(y, 6)


@pytest.fixture
def drawn():
    figs = []

    def draw(fn, *args, **kwargs) -> Drawn:
        fig = fn(*args, **kwargs)
        assert isinstance(fig, Figure)
        figs.append(fig)
        fig.canvas.draw()   # the layout runs: a figure that cannot render fails here
        return Drawn(fig)

    yield draw
    for fig in figs:
        plt.close(fig)


def test_the_figure_module_hands_on_every_technique_diagram():
    for name in NAMES:
        assert getattr(diagrams, name) is getattr(td, name), name


# {{{ halo loading


def test_halo_loads_as_the_strided_loop_of_the_solution():
    loads = td.halo_loads(8, 2)
    assert [lid for lid, _, _ in loads] == [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3]
    assert [p for _, p, _ in loads] == [0] * 8 + [1] * 4
    assert [j for _, _, j in loads] == [None, None] + list(range(10))   # group 0: in[-2], in[-1]
    assert [j for _, _, j in td.halo_loads(8, 2, group=1, n=16)][-3:] == [15, None, None]
    wide = td.halo_loads(4, 5)            # radius > tile: four passes
    assert len(wide) == 14 and wide[-1][:2] == (1, 3)
    with pytest.raises(ValueError):
        td.halo_loads(0, 1)


@pytest.mark.parametrize("tile, radius, group, n", [(8, 2, 0, None), (4, 5, 0, None),
                                                    (8, 2, 1, 16), (8, 0, 0, None)])
def test_halo_cells_name_the_work_item_that_loads_them(drawn, tile, radius, group, n):
    d = drawn(td.halo_loading, tile, radius, group, n)
    loads = td.halo_loads(tile, radius, group, n)
    for k, (lid, _, j) in enumerate(loads):
        assert d.text(f"load:{k}") == f"w{k % tile}" + ("\n+inf" if j is None else "")
        assert d.color(f"load:{k}") == d.color(f"load:{lid}")   # one colour per work-item
    outside = [p for p in d.ax.patches if p.get_hatch()]      # in[j] past the data: hatched
    assert len(outside) == sum(j is None for _, _, j in loads)
    passes = math.ceil((tile + 2 * radius) / tile)
    assert sum(t.startswith("pass ") for t in d.texts) == passes
    assert td.BARRIER in d.words and "INFINITY" in d.words
    first = group * tile
    assert f"work-item 0: out[{first}] = min(tile[0..{2 * radius}])" in d.words
    assert f"work-item {tile - 1}: out[{first + tile - 1}] = " \
           f"min(tile[{tile - 1}..{tile - 1 + 2 * radius}])" in d.words

# }}}

# {{{ tiled transpose


@pytest.mark.parametrize("tile, padding, group", [(4, 1, (2, 1)), (2, 0, (0, 1)), (8, 1, (1, 0))])
def test_transpose_puts_the_block_at_the_transposed_place(drawn, tile, padding, group):
    d, t, (gx, gy) = drawn(td.tiled_transpose, tile, padding, group), tile, group
    m_in, m_out = d.patch("matrix:in"), d.patch("matrix:out")
    assert (m_in.get_width(), m_in.get_height()) == (3 * t, 2 * t)     # in: height x width
    assert (m_out.get_width(), m_out.get_height()) == (2 * t, 3 * t)   # out: width x height
    b_in, b_out = d.patch("block:in"), d.patch("block:out")
    top_in, top_out = m_in.get_y() + m_in.get_height(), m_out.get_y() + m_out.get_height()
    assert b_in.get_x() - m_in.get_x() == gx * t and top_in - b_in.get_y() - t == gy * t
    assert b_out.get_x() - m_out.get_x() == gy * t and top_out - b_out.get_y() - t == gx * t
    for a in range(t):          # element (a, b): row a, column b of the block in `in`
        for b in range(t):
            x, y = d.corner(f"in:{a},{b}")
            assert (x - b_in.get_x(), b_in.get_y() + t - 1 - y) == (b, a)
            x, y = d.corner(f"out:{a},{b}")
            assert (x - b_out.get_x(), b_out.get_y() + t - 1 - y) == (a, b)   # row b, column a
            x, y = d.corner(f"tile:{a},{b}")
            assert d.color(f"in:{a},{b}") == d.color(f"out:{a},{b}") == d.color(f"tile:{a},{b}")
            assert d.text(f"in:{a},{b}") == d.text(f"out:{a},{b}") == f"{chr(65 + a)}{b}"
            assert d.color(f"in:{a},{b}") == d.color(f"in:{a},0")     # colour: the row of `in`
    assert len({d.color(f"in:{a},0") for a in range(t)}) == t
    assert len(d.patches("tile:")) == t * t
    assert len([p for p in d.ax.patches if p.get_gid() == "pad"]) == t * padding
    assert f"__local float tile[{t}][{t} + {padding}]" in d.words and td.BARRIER in d.words


def test_transpose_refuses_a_block_outside_the_matrix():
    with pytest.raises(ValueError):
        td.tiled_transpose(4, 1, (3, 0))

# }}}

# {{{ SGEMM tiles


@pytest.mark.parametrize("t, steps", [(4, 3), (2, 5), (8, 1)])
def test_sgemm_gives_each_step_one_colour_on_both_bands(drawn, t, steps):
    d = drawn(td.sgemm_tiles, t, steps)
    a = [d.color(f"A:{s}") for s in range(steps)]
    b = [d.color(f"B:{s}") for s in range(steps)]
    assert len(set(a)) == steps and a == b
    c = d.patch("C")
    for s in range(steps):
        ax_, ay = d.corner(f"A:{s}")
        bx, by = d.corner(f"B:{s}")
        assert ax_ == s * t and ay == c.get_y()                      # A's row band, along k
        assert bx == c.get_x() and by == d.corner("B:0")[1] - s * t  # B's column band, down k
    assert d.texts.count("barrier") == 2 * steps
    assert sum(t_.startswith("step ") and "load" in t_ for t_ in d.texts) == steps
    assert f"walks along k in {steps} steps of {t}" in d.words and "c[row][col] = sum" in d.words

# }}}

# {{{ privatized histogram


def test_histogram_atomics_counts_both_ways():
    at = td.histogram_atomics([0, 0, 1, 0, 1, 1, 1, 1], groups=2, bins=3)
    assert at["local"] == [[3, 1, 0], [0, 4, 0]]
    assert (at["direct"], at["direct_queue"]) == (8, 5)
    assert (at["merged"], at["merged_queue"]) == (3, 2)   # bin 2 is empty in both: skipped


@pytest.mark.parametrize("groups, bins, items", [(3, 4, 8), (2, 3, 6), (4, 2, 5)])
def test_histogram_draws_one_square_per_atomic(drawn, groups, bins, items):
    d = drawn(td.privatized_histogram, groups, bins, items)
    data = td.histogram_data(groups, bins, items)
    at = td.histogram_atomics(data, groups, bins)
    assert d.count("direct") == len(data) == d.count("local")
    assert d.count("merge") == at["merged"]              # an arrow per non-zero local count
    merged = [t for t in d.ax.texts if t.get_gid() == "merged"]
    assert len(merged) == at["merged"] and sum(int(t.get_text()) for t in merged) == len(data)
    assert f"{len(data)} atomics on global memory" in d.words
    assert f"{at['merged']} on global memory" in d.words
    assert f"at most {at['merged_queue']} queue on one address" in d.words
    assert at["merged_queue"] <= groups


def test_the_default_histogram_shows_fewer_global_atomics_merged():
    at = td.histogram_atomics(td.histogram_data(3, 4, 8), 3, 4)
    assert at["merged"] < at["direct"] and at["merged_queue"] < at["direct_queue"]

# }}}

# {{{ register ring


def test_ring_and_shift_hold_the_last_samples():
    assert td.ring_slots(4, 4) == [4, 1, 2, 3] and td.ring_slots(5, 4) == [4, 5, 2, 3]
    assert td.shift_registers(5, 4) == [5, 4, 3, 2]
    assert sorted(td.ring_slots(13, 8)) == td.shift_registers(13, 8)[::-1]


@pytest.mark.parametrize("taps, steps", [(4, 3), (8, 2), (2, 4)])
def test_the_ring_stays_put_and_the_registers_shift(drawn, taps, steps):
    d = drawn(td.register_ring, taps, steps)
    for t in range(taps, taps + steps):
        assert d.text(f"ring:{t}:{t % taps}") == f"x[{t}]"      # written at t % taps
        for k in range(taps):
            assert d.text(f"reg:{t}:{k}") == f"x[{t - k}]"
            if t > taps:                                         # a sample keeps its colour:
                assert d.color(f"ring:{t}:{k}") == d.color(f"ring:{t - 1}:{k}") or \
                    k == t % taps                                # in the ring it stays put,
                if k:                                            # in the registers it moves on
                    assert d.color(f"reg:{t}:{k}") == d.color(f"reg:{t - 1}:{k - 1}")
    assert "'local memory' in NVIDIA's words" in d.words and "in registers" in d.words
    assert f"ring[{taps}], in memory" in d.words
    with pytest.raises(ValueError):
        td.register_ring(1)

# }}}

# {{{ reduction steps


def test_sequential_is_packed_and_interleaved_is_not():
    for s in (8, 4, 2, 1):
        assert td.active_items(16, s, "sequential") == list(range(s))
    assert td.active_items(16, 1, "interleaved") == [0, 2, 4, 6, 8, 10, 12, 14]
    assert td.busy_warps(td.active_items(16, 2, "interleaved"), 4) == 4
    assert td.busy_warps(td.active_items(16, 4, "sequential"), 4) == 1
    with pytest.raises(ValueError):
        td.active_items(16, 1, "diagonal")


@pytest.mark.parametrize("n, warp", [(16, 4), (32, 8), (8, 2)])
def test_reduction_steps_draws_who_adds_what(drawn, n, warp):
    d = drawn(td.reduction_steps, n, warp)
    s = 1
    while s < n:
        for scheme in ("interleaved", "sequential"):
            cells = d.patches(f"{scheme}:{s}:")
            active = sorted(int(g.rsplit(":", 1)[1]) for g in cells)
            assert active == td.active_items(n, s, scheme)
            for lid in active:
                assert d.text(f"{scheme}:{s}:{lid}") == f"+{lid + s}"
        s *= 2
    first = sorted(int(g.rsplit(":", 1)[1]) for g in d.patches("interleaved:1:"))
    assert first != list(range(len(first)))            # scattered, not contiguous
    nwarps = n // warp
    assert f"{n // 2} active, in {nwarps} of {nwarps} warps" in d.words
    assert f"{n // 2} active, in {math.ceil(n // 2 / warp)} of {nwarps} warps" in d.words
    assert "Warp-steps issued: interleaved" in d.words


def test_reduction_steps_counts_the_warps_of_the_default():
    words = Drawn(td.reduction_steps()).words
    plt.close("all")
    assert "interleaved 11, sequential 5" in words
    with pytest.raises(ValueError):
        td.reduction_steps(12)

# }}}

# {{{ matrix-vector


@pytest.mark.parametrize("rows, width, group, groups", [(3, 12, 4, None), (4, 10, 8, 2),
                                                        (2, 5, 2, None)])
def test_matvec_a_work_group_per_row_and_its_tree(drawn, rows, width, group, groups):
    d = drawn(td.matvec_group_per_row, rows, width, group, groups)
    for y in range(rows):
        for x in range(width):
            assert d.text(f"m:{y}:{x}") == str(x % group)          # work-item lid reads x
            assert d.color(f"m:{y}:{x}") == d.color(f"m:0:{x % group}")
        assert f"m row {y}:\nwork-group {y % (groups or rows)}" in d.texts
        assert d.text(f"w:{y}") == f"w[{y}]"
    assert sum(t.startswith("pass ") for t in d.texts) == math.ceil(width / group)
    s = group // 2
    while s:
        assert sorted(int(g.rsplit(":", 1)[1]) for g in d.patches(f"tree:{s}:")) == list(range(s))
        s //= 2
    assert d.texts.count(td.BARRIER) == int(math.log2(group)) + 1
    assert "work-item 0 writes w[0] = partial[0]" in d.words
    assert ("takes rows g, g + 2" in d.words) == (groups == 2)
    with pytest.raises(ValueError):
        td.matvec_group_per_row(3, 12, 3)

# }}}
