"""The figures render from measured results, and each widget's update draws through them (the
widgets are built here without a browser, as nbval does)."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_rgb
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.transforms import Bbox

from helpers import (
    bench,
    cache,
    checking,  # noqa: E402
    ndrange,
    plots,
)
from helpers.device import course_context
from helpers.exercises import passed
from helpers.kernels import kernel_path

from .figures_for_tests import figures
from .shipped import shipped_skeleton


@pytest.fixture(scope="module")
def cq():
    return course_context(quiet=True)


def _texts(fig: Figure) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


@pytest.mark.once
def test_ndrange_grid_writes_every_value_and_draws_group_borders():
    values = ndrange.query_values((8, 4), (4, 2), "get_local_id(0)")
    fig = plots.ndrange_grid(values, (4, 2), "t", highlight=(1, 1))
    assert _texts(fig).count("3") == 8  # local id 3 appears twice per row, 4 rows
    ax = fig.axes[0]
    assert len(ax.lines) == (8 // 4 + 1) + (4 // 2 + 1)  # vertical and horizontal borders
    assert len(ax.patches) == 1
    assert not _texts(plots.ndrange_grid(values, (4, 2), labels=False))
    plt.close("all")


def test_explorer_runs_the_solution_until_the_learner_passes_then_the_learners(cq, tmp_path,
                                                                              monkeypatch):
    from helpers import widgets
    ctx, queue = cq
    explorer = widgets.NDRangeExplorer(ctx, queue, (16, 8), (4, 2), query=5)
    assert explorer.last.kernel == "solutions/query_work_space.cl"
    assert (explorer.last.values == ndrange.query_values((16, 8), (4, 2), 5)).all()
    assert 3 not in explorer.lx.options   # 16 is not a multiple of 3: not offered
    explorer.dims.value = "1-D"
    explorer.lx.value = 4
    assert explorer.last.global_size == (16,) and explorer.gy.disabled
    # once the learner's file (a copy of the solution, outside kernels/) has passed, the explorer
    # runs it; edited again, it is not trusted any more
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    mine = tmp_path / "query_work_space.cl"
    mine.write_text(kernel_path("query_work_space", solutions=True).read_text())
    real_kernel_path = passed.kernel_path
    monkeypatch.setattr(passed, "kernel_path", lambda name, solutions=None:
                        mine if solutions is False else real_kernel_path(name, solutions=solutions))
    assert passed.kernel_to_measure("query_work_space") != mine
    assert checking.run_check("query_work_space", mine).passed
    assert passed.has_passed("query_work_space", mine)
    assert passed.kernel_to_measure("query_work_space") == mine
    assert explorer.update().kernel == str(mine)
    mine.write_text(mine.read_text() + "\n// edited\n")
    assert passed.kernel_to_measure("query_work_space") != mine
    plt.close("all")


def test_every_position_of_the_explorers_sliders_is_a_launch_it_runs(cq):
    from helpers import widgets
    ctx, queue = cq
    dev = queue.device
    explorer = widgets.NDRangeExplorer(ctx, queue, (16, 8), (4, 2), query=4)
    for gx, gy in [(16, 8), (12, 30), (64, 32), (7, 1), (60, 9)]:
        explorer.gx.value, explorer.gy.value = gx, gy
        for slider, other, g in ((explorer.lx, explorer.ly, gx), (explorer.ly, explorer.lx, gy)):
            offered = list(slider.options)
            # every divisor that fits the device, and nothing else
            assert offered == [x for x in range(1, g + 1) if g % x == 0
                               and x * other.value <= dev.max_work_group_size
                               and x <= dev.max_work_item_sizes[slider is explorer.ly]]
            for x in offered:
                before, changed = explorer.runs, x != slider.value
                slider.value = x
                assert explorer.runs == before + changed   # one run for a change, none without
                assert explorer.last.problem is None, explorer.last.problem
                assert explorer.last.values.shape == (gy, gx)
    plt.close("all")


def test_the_explorer_runs_once_per_change_and_says_each_thing_once(cq, monkeypatch):
    from helpers import widgets
    ctx, queue = cq
    explorer = widgets.NDRangeExplorer(ctx, queue, (16, 8), (8, 2), query=0)
    runs = explorer.runs
    explorer.gx.value = 12           # 8 does not divide 12: the local size becomes 6, one run
    assert explorer.lx.value == 6 and explorer.runs == runs + 1
    assert explorer.last.local_size == (6, 2) and explorer.last.problem is None
    assert "96 work-items in 8 work-groups" in explorer.message.value
    explorer.gx.value, explorer.gy.value = 1, 1
    assert "1 work-item in 1 work-group." in explorer.message.value
    # a range the device refuses (set from code, not offered): said once, in the message only
    refused = ndrange.QueryRun((16,), (16,), 0, None, "The device refused this launch: no.", "k")
    monkeypatch.setattr(widgets, "run_query", lambda *args, **kwargs: refused)
    explorer.update()
    assert explorer.message.value.count("refused this launch") == 1
    assert explorer.picture.outputs == ()
    plt.close("all")


def test_peaks_are_measured_once_then_read_from_the_cache(cq, tmp_path, monkeypatch):
    ctx, queue = cq
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    first = bench.peaks(ctx, queue, progress=False)
    for key in ("bandwidth_gb_per_s", "compute_gflop_per_s", "copy_bandwidth_gb_per_s"):
        assert first[key] > 0
    assert set(first["read_gb_per_s"]) == set(bench.PEAK_WIDTHS)
    assert first["environment"]["device"]["device"] == queue.device.name.strip()
    assert len(cache.read(bench.PEAKS_CACHE)) == 1
    import helpers.measure.peaks as peaks_module
    monkeypatch.setattr(peaks_module, "_MEASURED_AGAIN", set())
    again = bench.peaks(ctx, queue, progress=False)
    if first["busy"]:   # measured while the machine was busy: once more in this process, then kept
        assert again["environment"]["date"] >= first["environment"]["date"]
        first = again
        again = bench.peaks(ctx, queue, progress=False)
    assert again["environment"]["date"] == first["environment"]["date"]  # not measured again
    assert again["read_gb_per_s"] == first["read_gb_per_s"]


def test_time_exercise_checks_the_result_and_counts_the_bytes(cq):
    from helpers.exercises import Case
    ctx, queue = cq
    case = Case((1024,), (64,), {"n": 1000})
    r = bench.time_exercise(ctx, queue, "sum_ints", case, repeats=3)
    assert r["bytes"] == 3 * 4 * 1000 and r["seconds"] > 0
    assert r["kernel"] == "solutions/sum_ints.cl"
    with pytest.raises(AssertionError, match="gave wrong results"):
        bench.time_exercise(ctx, queue, "sum_ints", case, kernel=shipped_skeleton("sum_ints"))


def test_time_exercise_gives_a_slow_kernel_fewer_runs_within_its_budget(cq):
    from helpers.exercises import Case
    ctx, queue = cq
    case = Case((1024,), (64,), {"n": 1000})
    plenty = bench.time_exercise(ctx, queue, "sum_ints", case, budget_s=60.0)
    assert (plenty["warmup"], plenty["repeats"]) == (2, 10)
    # a budget any launch exceeds: three runs, the first launch its only warm-up
    tight = bench.time_exercise(ctx, queue, "sum_ints", case, budget_s=1e-12)
    assert (tight["warmup"], tight["repeats"]) == (0, 3) and tight["seconds"] > 0


def test_sweeps_and_their_figures(cq):
    ctx, queue = cq
    sweep = bench.throughput_sweep(ctx, queue, "sum_ints", [1 << 10, 1 << 14], progress=False)
    assert [p["n"] for p in sweep["points"]] == [1 << 10, 1 << 14]
    peak = {"bandwidth_gb_per_s": 10.0, "compute_gflop_per_s": 40.0}
    assert isinstance(plots.throughput_sweep(sweep, peak), Figure)
    mv = bench.matrix_vector_sweep(ctx, queue, [1, 4, 16], rows=64, cols=96, progress=False)
    p = mv["points"][1]
    assert p["bytes"] == 2 * 4 * 64 * 96 + 4 * 96 and p["flops"] == 2 * 4 * 64 * 96
    assert isinstance(plots.throughput_vs_repeat(mv, peak), Figure)
    assert isinstance(plots.roofline(mv, peak, reference=(mv, peak)), Figure)
    assert bench.ridge_point(peak) == 4.0
    plt.close("all")


@pytest.mark.once
def test_crossover_is_the_floor_over_the_slope():
    flat = [{"repeat": r, "seconds": 1.0} for r in (1, 2, 4, 8)]
    assert bench.crossover(flat) is None
    rising = [{"repeat": 1, "seconds": 1.0}, {"repeat": 2, "seconds": 1.0},
              {"repeat": 32, "seconds": 4.0}, {"repeat": 64, "seconds": 8.0}]
    assert bench.crossover(rising) == pytest.approx(8.0)  # 1 ms floor / (4 ms / 32 rounds)


def test_throughput_sweep_widget_runs_on_its_button(cq):
    from helpers import widgets
    ctx, queue = cq
    w = widgets.ThroughputSweep(ctx, queue)
    w.largest.value = 12
    w.button.click()
    assert [p["n"] for p in w.result["points"]] == [1 << 10, 1 << 12]
    plt.close("all")


def test_group_order_and_timings_figures():
    assert isinstance(plots.group_order(np.random.default_rng(0).permutation(50)), Figure)
    assert isinstance(plots.timings([("a", 1e-3), ("b", 2e-3)]), Figure)
    plt.close("all")


def test_the_work_group_size_explorer_marks_the_chosen_size_on_every_device():
    here = [{"local": s, "gb_per_s": g} for s, g in ((1, 2.0), (32, 10.0), (256, 20.0))] + \
        [{"local": None, "gb_per_s": 15.0}]
    there = [{"local": s, "gb_per_s": g} for s, g in ((32, 100.0), (256, 400.0), (1024, 300.0))] \
        + [{"local": None, "gb_per_s": 350.0}]
    from helpers import widgets
    w = widgets.WorkGroupSizeExplorer({"here": here, "H100": there})
    assert list(w.size.options) == [32, 256, 1024, "NULL"] and w.size.value == 256
    assert w.lines() == ["here: 20.0 GB/s (100% of the best, 20.0 GB/s at 256)",
                         "H100: 400.0 GB/s (100% of the best, 400.0 GB/s at 256)"]
    w.size.value = 1024
    assert w.lines()[0] == "here: 1024 was not measured (past this device's largest)"
    assert w.lines()[1].startswith("H100: 300.0 GB/s (75% of the best")
    w.size.value = "NULL"
    assert w.lines()[0] == "here: 15.0 GB/s (75% of the best, 20.0 GB/s at 256)"
    assert isinstance(plots.work_group_sizes({"here": here}, "NULL"), Figure)


def test_the_model_beside_this_devices_times(cq, monkeypatch):
    """A technique's lesson: the starting kernel and the solution counted by the warp model and
    timed on the course device, drawn side by side; where the model cannot run, one sentence
    and nothing timed."""
    from helpers.checking import counters
    from helpers.warp import build
    ctx, queue = cq
    shown = counters.model_and_times(ctx, queue, "spill_fix")
    assert shown["available"], shown["why"]
    assert [r["role"] for r in shown["rows"]] == ["given", "solution"]
    for r in shown["rows"]:
        assert 0 < r["min_seconds"] <= r["seconds"] <= r["max_seconds"] and "error" not in r
    assert shown["rows"][0]["value"] > 0 == shown["rows"][1]["value"]
    assert shown["environment"]["device"]["device"] == queue.device.name.strip()
    fig = plots.model_beside_time(shown)
    left, right = fig.axes
    assert "warp model" in left.get_title() and "measured on this device" in right.get_title()
    assert queue.device.name.strip() in right.get_title()
    plt.close(fig)
    monkeypatch.setattr(build, "plugin", lambda **_: build.Built(None, "no C++ compiler here"))
    without = counters.model_and_times(ctx, queue, "spill_fix")
    assert not without["available"] and "seconds" not in without["rows"][0]
    assert without["why"] == "No warp model here, so no figure: no C++ compiler here."


def test_two_exercises_side_by_side_in_the_model_and_on_the_clock(cq):
    """Notebook 03: erosion_1d and erosion_1d_local counted on one case (the tile sends a
    fraction of the warp requests to global memory; a count of requests has no ideal) and timed
    on the bench's launch."""
    from helpers.checking import counters
    ctx, queue = cq
    shown = counters.exercises_and_times(ctx, queue, ("erosion_1d", "erosion_1d_local"),
                                         "global requests")
    assert shown["available"], shown["why"]
    plain, tiled = shown["rows"]
    assert plain["record"] == "erosion_1d" and tiled["record"] == "erosion_1d_local"
    assert plain["value"] > 4 * tiled["value"] > 0 and plain["ideal"] is tiled["ideal"] is None
    assert tiled["counters"]["local_requests"] > 0 == plain["counters"]["local_requests"]
    for r in shown["rows"]:
        assert 0 < r["min_seconds"] <= r["seconds"] <= r["max_seconds"]
    fig = plots.model_beside_time(shown)
    assert "ideal" not in fig.axes[0].get_xlabel()
    plt.close(fig)


@pytest.mark.once
def test_two_timings_within_each_others_spread_are_said_to_be():
    from helpers.chartstyle import within_spread

    def row(label, role, low, high):
        return {"label": label, "role": role, "seconds": (low + high) / 2, "min_seconds": low,
                "max_seconds": high}
    start = row("the start", "given", 1.0, 2.0)
    assert within_spread([start, row("the solution", "solution", 1.9, 3.0)]) == \
        "\nwithin the spread of the start: the solution"
    assert within_spread([start, row("the solution", "solution", 0.5, 0.9)]) == ""
    assert within_spread([row("the solution", "solution", 1.0, 2.0)]) == ""


# --------------------------------------------------------------------------------------------------
# How every figure reads: a colour per series, legends off the data, plain tick labels, devices of
# different scales apart.

FIGURES = figures()


def _drawn(name: str) -> Figure:
    fig = FIGURES[name]()
    fig.canvas.draw()
    return fig


def _series(ax) -> list[tuple[str, tuple]]:
    """(label, colour) of each data series of ``ax``: labelled lines with markers, labelled bars,
    and the patches a legend names (bars coloured by category)."""
    found = []
    for line in ax.get_lines():
        if not line.get_label().startswith("_") and line.get_marker() not in (None, "", "None"):
            found.append((line.get_label(), to_rgb(line.get_color())))
    for bars in ax.containers:
        if isinstance(bars, BarContainer) and not bars.get_label().startswith("_"):
            found.append((bars.get_label(), to_rgb(bars.patches[0].get_facecolor())))
    legend = ax.get_legend()
    for handle in legend.legend_handles if legend else []:
        if isinstance(handle, Patch) and not handle.get_label().startswith("_"):   # a proxy
            found.append((handle.get_label(), to_rgb(handle.get_facecolor())))
    return found


@pytest.mark.once   # the figures are drawn from results/: no device
@pytest.mark.parametrize("name", list(FIGURES))
def test_each_series_has_a_colour_of_its_own(name):
    fig = _drawn(name)
    for ax in fig.axes:
        series = _series(ax)
        colours = [c for _, c in series]
        assert len(set(colours)) == len(colours), (name, ax.get_title(), series)
    plt.close(fig)


@pytest.mark.once
def test_a_chart_of_twelve_series_draws_five_and_says_so():
    fig = _drawn("sweep_lines mlp (12 series)")
    ax = fig.axes[0]
    assert len({c for _, c in _series(ax)}) == 5
    assert "5 of 12 series" in ax.get_title()
    plt.close(fig)


@pytest.mark.once
def test_a_sweeps_axis_fits_its_lines_and_shows_their_spread():
    """The learner's notebook 05 chart: lines under 2 GB/s beside an 11 GB/s peak. The axis fits
    the lines (the peak is written, not drawn), and each line has the band of its repeats."""
    rows = [{"label": f"{k} floats", "work_items": w, "gb_per_s": 0.1 * k * w / 1024,
             "seconds": 1.0, "min_seconds": 0.9, "max_seconds": 1.2}
            for k in (1, 2, 4) for w in (256, 1024, 4096)]
    fig = plots.sweep_lines(rows, "work_items", "gb_per_s", "MLP", "work-items", "GB/s", 11.0,
                            "measured peak")
    ax = fig.axes[0]
    top = max(r["gb_per_s"] / 0.9 for r in rows)
    assert ax.get_ylim()[1] < 1.2 * top
    assert not [ln for ln in ax.get_lines() if list(ln.get_ydata()) == [11.0, 11.0]]
    assert any("measured peak: 11" in t.get_text() and "above this chart" in t.get_text()
               for t in ax.texts)
    assert len(ax.collections) == 3          # a spread band per line
    plt.close(fig)


def _data_boxes(ax, renderer) -> list:
    """Display-space boxes of everything that shows data: each point of each line (its markers
    and vertices), each bar."""
    boxes = []
    for line in ax.get_lines():
        xy = line.get_transform().transform(line.get_xydata())
        boxes += [Bbox([p, p]) for p in xy if np.isfinite(p).all()]
    boxes += [p.get_window_extent(renderer) for bars in ax.containers
              if isinstance(bars, BarContainer) for p in bars.patches]
    return boxes


@pytest.mark.once   # the figures are drawn from results/: no device
@pytest.mark.parametrize("name", list(FIGURES))
def test_no_legend_covers_data(name):
    fig = _drawn(name)
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        box = legend.get_window_extent(renderer)
        if not box.overlaps(ax.get_window_extent(renderer)):
            continue   # outside the axes
        covered = [b for b in _data_boxes(ax, renderer) if b.overlaps(box)]
        assert not covered, f"{name}: the legend covers {len(covered)} data points or bars"
    for legend in fig.legends:
        box = legend.get_window_extent(renderer)
        assert not any(box.overlaps(ax.get_window_extent(renderer)) for ax in fig.axes), name
    plt.close(fig)


POWERS = re.compile(r"\de[+-]?\d|×|\\times|10\^|\$")


@pytest.mark.once   # the figures are drawn from results/: no device
@pytest.mark.parametrize("name", list(FIGURES))
def test_no_axis_uses_an_offset_or_powers_of_ten(name):
    fig = _drawn(name)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            assert axis.get_offset_text().get_text() == "", (name, axis.get_offset_text())
            labels = [t.get_text() for t in axis.get_ticklabels(which="both")]
            assert not [t for t in labels if POWERS.search(t)], (name, labels)
    plt.close(fig)


@pytest.mark.once
def test_a_small_time_is_drawn_in_microseconds_and_large_numbers_plainly():
    fig = plots.timings([("a", 2e-6), ("b", 5e-5)], "t")
    assert fig.axes[0].get_xlabel().startswith("kernel time (µs")
    assert [t.get_text().strip() for t in fig.axes[0].texts] == ["2 µs", "50 µs"]
    fig = plots.compare({"H100": {"a": 0.004, "b": 0.02}}, "t", "ms", log=False)
    assert fig.axes[0].get_xlabel() == "µs"
    assert plots.compare({"H100": {"a": 12345.0}}, "t", "GB/s").axes[0].texts[0].get_text() \
        == " 12,300"
    plt.close("all")


def _device_values(ax, device: str) -> list[float]:
    """What ``ax`` shows of ``device`` (series whose label names it): lines' y values, bars'
    lengths."""
    values = []
    for line in ax.get_lines():
        if device in line.get_label():
            values += [float(v) for v in line.get_ydata()]
    for bars in ax.containers:
        if isinstance(bars, BarContainer) and device in bars.get_label():
            horizontal = bars.orientation == "horizontal"
            values += [p.get_width() if horizontal else p.get_height() for p in bars.patches]
    return [v for v in values if v > 0]


@pytest.mark.once
@pytest.mark.parametrize("name, devices", [
    ("work_group_sizes", ("Xeon", "H100")),
    ("compare", ("Xeon", "H100")),
    ("compare, linear asked", ("Xeon", "H100")),
    ("throughput_sweep", ("Xeon", "H100")),
    ("roofline", ("Xeon", "H100")),
])
def test_devices_tenfold_apart_do_not_share_a_linear_axis(name, devices):
    fig = _drawn(name)
    shared = 0
    for ax in fig.axes:
        tops = {d: max(v) for d in devices if (v := _device_values(ax, d))}
        if len(tops) < 2 or max(tops.values()) <= 10 * min(tops.values()):
            continue
        shared += 1
        bars = [b for b in ax.containers if isinstance(b, BarContainer)]
        axis = ax.xaxis if bars and bars[0].orientation == "horizontal" else ax.yaxis
        label = axis.get_label().get_text()
        assert axis.get_scale() == "log" and "log scale" in label, (name, label)
    if name.startswith("work_group_sizes"):   # a panel each, and the figure says why
        assert shared == 0 and len(fig.axes) == 2
        assert "own y-axis" in fig._suptitle.get_text()
    plt.close(fig)
