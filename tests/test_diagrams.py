"""The concept diagrams draw, and say what carries their concept: the numbers they write are the
ones computed from their arguments (ids, sectors, banks, sums, the idle fraction, the ridge)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from helpers import diagrams  # noqa: E402

pytestmark = pytest.mark.once   # no device


def _words(fig: Figure) -> str:
    """Every text the figure shows: titles, labels, texts, tick labels and legends."""
    out = [t.get_text() for t in fig.texts]
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        out += [t.get_text() for t in ax.texts]
        out += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
        if ax.get_legend():
            out += [t.get_text() for t in ax.get_legend().get_texts()]
    return "\n".join(out)


@pytest.fixture
def drawn():
    """Draw through the given function, hand back the figure's words, close it."""
    figs = []

    def draw(fn, *args, **kwargs) -> str:
        fig = fn(*args, **kwargs)
        figs.append(fig)
        assert isinstance(fig, Figure)
        fig.canvas.draw()   # the layout runs: a figure that cannot render fails here
        return _words(fig)

    yield draw
    for fig in figs:
        plt.close(fig)


def test_host_and_device_names_both_sides_and_the_three_commands(drawn):
    words = drawn(diagrams.host_and_device)
    for needed in ("HOST", "DEVICE", "cl.Context", "cl.CommandQueue", "cl.Buffer",
                   "cl.Program", "compute", "global memory", "1. write", "2. launch", "3. read"):
        assert needed in words, needed


@pytest.mark.parametrize("global_size, local_size, item", [
    ((16, 8), (4, 4), (5, 2)), ((12, 6), (3, 2), (11, 5)), ((8, 8), (8, 1), (0, 7))])
def test_ndrange_writes_the_ids_of_the_work_item(drawn, global_size, local_size, item):
    words = drawn(diagrams.ndrange, global_size, local_size, item)
    group = tuple(i // lo for i, lo in zip(item, local_size, strict=True))
    local = tuple(i % lo for i, lo in zip(item, local_size, strict=True))
    groups = tuple(g // lo for g, lo in zip(global_size, local_size, strict=True))
    assert f"global id ({item[0]}, {item[1]})" in words
    assert f"group id ({group[0]}, {group[1]})" in words
    assert f"local id ({local[0]}, {local[1]})" in words
    assert f"{groups[0]} x {groups[1]} work-groups" in words


def test_ndrange_refuses_what_opencl_refuses():
    with pytest.raises(ValueError, match="divide"):
        diagrams.ndrange((10, 8), (4, 4), (0, 0))
    with pytest.raises(ValueError, match="outside"):
        diagrams.ndrange((16, 8), (4, 4), (16, 0))


@pytest.mark.parametrize("warp", [8, 32])
def test_divergence_runs_both_paths_at_half_the_lanes(drawn, warp):
    words = drawn(diagrams.warps_and_divergence, warp)
    assert "if (lane % 2 == 0)" in words and "else" in words
    assert words.count("idle") == warp   # half of each path's row
    assert f"{warp} of {2 * warp} lane-steps do work (50%)" in words


def test_coalescing_counts_4_and_32_sectors(drawn):
    assert len(diagrams.sectors(1)) == 4 and len(diagrams.sectors(32)) == 32
    assert len(diagrams.sectors(2)) == 8 and len(diagrams.sectors(8)) == 32
    words = drawn(diagrams.coalescing)
    assert "4 sectors of 32 bytes, 100%" in words
    assert "32 sectors of 32 bytes, 12.5%" in words
    assert "global_sectors_per_request = 4 and 32" in words
    assert "8 sectors of 32 bytes, 50%" in drawn(diagrams.coalescing, "strided", stride=2)
    with pytest.raises(ValueError):
        diagrams.coalescing("diagonal")


def test_banks_32_way_without_padding_and_none_with(drawn):
    assert diagrams.bank_hits(32, 0) == {0: 32}
    assert diagrams.bank_hits(32, 1) == {b: 1 for b in range(32)}
    assert max(diagrams.bank_hits(32, 2).values()) == 2   # 34 floats a row: even banks twice
    plain = drawn(diagrams.banks, 32, 0)
    assert "32-way conflict" in plain and "1 bank hit" in plain
    padded = drawn(diagrams.banks, 32, 1)
    assert "no conflict" in padded and "32 banks hit" in padded and "way conflict" not in padded
    assert "2-way conflict" in drawn(diagrams.banks, 32, 2)


@pytest.mark.parametrize("column", [0, 5, 31])
def test_banks_skewed_rows_put_a_column_in_32_different_banks(column):
    """No padding, the rows rotated (column c of row r at (c + r) % 32): the banks the figure
    writes in the column's 32 cells, read by the warp, are all different."""
    assert diagrams.bank_hits(32, 0, column, skew=True) == {b: 1 for b in range(32)}
    fig = diagrams.banks(32, 0, column, skew=True)
    try:
        tile, chart = fig.axes
        written = [int(t.get_text()) for t in tile.texts]
        assert len(written) == 32 and sorted(written) == list(range(32))
        assert "no conflict" in chart.get_title() and "32 banks hit" in chart.get_title()
        assert f"({column} + r) % 32" in tile.get_xlabel()
    finally:
        plt.close(fig)


@pytest.mark.parametrize("n", [2, 8, 16, 64])
def test_reduction_tree_ends_in_the_sum(drawn, n):
    words = drawn(diagrams.reduction_tree, n)
    levels = n.bit_length() - 1
    assert f"scratch[0] = {n * (n + 1) // 2}" in words
    assert f"{levels} levels" in words
    assert words.count("barrier(CLK_LOCAL_MEM_FENCE)") == levels
    assert "s = 1: 1 work-item active" in words
    with pytest.raises(ValueError):
        diagrams.reduction_tree(12)


@pytest.mark.parametrize("tile, radius", [(8, 2), (4, 5), (16, 0)])
def test_tile_with_halo_holds_local_size_plus_two_radius(drawn, tile, radius):
    words = drawn(diagrams.tile_with_halo, tile, radius)
    assert f"__local float tile[{tile + 2 * radius}]" in words
    assert f"{tile} + 2 x {radius} = {tile + 2 * radius} floats" in words
    assert f"reads tile[0..{2 * radius}]" in words


@pytest.mark.parametrize("block, steps", [(8, 2), (16, 4), (5, 0), (4, 1)])
def test_shrinking_tile_writes_back_the_inner_square(drawn, block, steps):
    inner = block - 2 * steps
    words = drawn(diagrams.shrinking_tile, block, steps)
    assert f"{block} x {block} work-group, {steps} steps per launch: {inner} x {inner} cells " \
           f"written back" in words
    fig = diagrams.shrinking_tile(block, steps)
    labels = [t.get_text() for t in fig.axes[0].texts if t.get_text().isdigit()]
    plt.close(fig)
    # ring r (r < steps) holds 4 (block - 2 r - 1) cells, each marked with the step r + 1
    for r in range(steps):
        assert labels.count(str(r + 1)) == 4 * (block - 2 * r - 1)
    assert len(labels) == block * block - inner * inner
    with pytest.raises(ValueError):
        diagrams.shrinking_tile(4, 2)


@pytest.mark.parametrize("warps, latency, work, idle", [
    (3, 40, 8, "50%"), (1, 40, 8, "83%"), (6, 40, 8, None), (12, 40, 8, None)])
def test_occupancy_and_latency_idles_with_too_few_warps(drawn, warps, latency, work, idle):
    assert diagrams.idle_fraction(warps, latency, work) == pytest.approx(
        max(0.0, 1 - warps * work / (work + latency)))
    words = drawn(diagrams.occupancy_and_latency, warps, latency, work)
    assert (f"it idles {idle} of the time" in words) if idle else ("it never idles" in words)
    assert "6 warps would hide the latency" in words


def test_roofline_places_its_ridge_and_its_kernels(drawn):
    words = drawn(diagrams.roofline)
    assert "example numbers" in words and "ridge point: 25 FLOP/byte" in words
    assert "saxpy: 0.167 FLOP/byte, memory-bound" in words
    assert "SGEMM, 128 x 128 blocks: 32 FLOP/byte, compute-bound" in words
    other = drawn(diagrams.roofline, bandwidth=1000, peak=4000, kernels=(("k", 8.0),))
    assert "ridge point: 4 FLOP/byte" in other and "k: 8 FLOP/byte, compute-bound" in other


def test_scalar_and_vliw_fill_one_and_four_of_five_slots(drawn):
    assert diagrams.vliw_fill(1) == 1 and diagrams.vliw_fill(4) == 4 and diagrams.vliw_fill(9) == 5
    words = drawn(diagrams.scalar_and_vliw)
    assert "1 of 5 slots (20%)" in words and "4 of 5 slots (80%)" in words
    assert "8 of 8 lanes" in words and words.count("idle") == 4 + 1

