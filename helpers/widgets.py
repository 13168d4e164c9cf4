"""Thin ipywidgets layers over :mod:`helpers.plots`, :mod:`helpers.ndrange` and :mod:`helpers.bench`.

Each widget draws through a plotting function that tests call directly, and has an ``update()`` (or
``run()``) method that does what its controls do. Controls that start device runs act on release
(sliders with ``continuous_update=False``) or on a button; sweeps show a progress bar.
"""

from __future__ import annotations

import html
import math

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import display

from . import bench, plots
from .ndrange import QUERIES, QueryRun, local_choices, run_query
from .wording import plural


def _show(out: widgets.Output, fig) -> None:
    out.clear_output(wait=True)
    with out:
        display(fig)
    plt.close(fig)


class NDRangeExplorer(widgets.VBox):
    """Choose a 1-D or 2-D range, a work-group shape and a query function; the explorer runs
    ``query_work_space`` on the device (your kernel once it has passed its check, the solution
    until then) and draws what every work-item returned. The local-size sliders offer only the
    sizes this device runs with the chosen global size (:func:`helpers.ndrange.local_choices`):
    their last position is the largest work-group it accepts."""

    def __init__(self, ctx, queue, global_size=(16, 8), local_size=(4, 2), query: int = 4):
        self.ctx, self.queue = ctx, queue
        self.last: QueryRun | None = None
        self.runs = 0          # kernel runs, one per change of a control
        self._fitting = False  # the local sizes' options are being fitted: no run for that
        dev = queue.device
        self.limits = (dev.max_work_group_size, tuple(dev.max_work_item_sizes))
        style = {"description_width": "initial"}

        def global_slider(label: str, value: int, top: int) -> widgets.IntSlider:
            return widgets.IntSlider(value=value, min=1, max=top, description=label,
                                     continuous_update=False, style=style)

        def local_slider(label: str, value: int) -> widgets.SelectionSlider:
            return widgets.SelectionSlider(options=[value], value=value, description=label,
                                           continuous_update=False, style=style)

        self.dims = widgets.ToggleButtons(options=["1-D", "2-D"], value="2-D",
                                          description="range")
        self.gx = global_slider("global size (0)", global_size[0], 64)
        self.gy = global_slider("global size (1)", global_size[1], 32)
        self.lx = local_slider("local size (0)", local_size[0])
        self.ly = local_slider("local size (1)", local_size[1])
        self.query = widgets.Dropdown(options=[(q, i) for i, q in enumerate(QUERIES)], value=query,
                                      description="query")
        self.message = widgets.HTML()
        self.picture = widgets.Output()
        self._fit_local_sizes()
        for w in (self.dims, self.gx, self.gy, self.lx, self.ly, self.query):
            w.observe(self._changed, names="value")
        controls = widgets.VBox([self.dims, self.query, self.gx, self.gy, self.lx, self.ly])
        super().__init__([widgets.HBox([controls, self.message]), self.picture])
        self.update()

    def sizes(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        if self.dims.value == "1-D":
            return (self.gx.value,), (self.lx.value,)
        return (self.gx.value, self.gy.value), (self.lx.value, self.ly.value)

    def _changed(self, change) -> None:
        if self._fitting:
            return
        self._fit_local_sizes()
        self.update()

    def _fit_local_sizes(self) -> None:
        """Give each local-size slider the sizes that run with the others as they are, keeping
        its value where it still runs, else taking the largest that does below it."""
        self._fitting = True
        try:
            sliders = (self.lx,) if self.dims.value == "1-D" else (self.lx, self.ly)
            for _ in range(2):   # a value one slider gives up may widen the other's choice
                for d, slider in enumerate(sliders):
                    glob, loc = self.sizes()
                    choices = local_choices(glob, loc, d, *self.limits)
                    value = max(c for c in choices if c <= slider.value)   # 1 always runs
                    if list(slider.options) != choices:
                        slider.options = choices
                    slider.value = value
        finally:
            self._fitting = False

    def update(self) -> QueryRun:
        """Run the kernel for the controls' values and draw the result (or say, once, why it
        cannot run: only a range set from code can be refused)."""
        one_d = self.dims.value == "1-D"
        self.gy.disabled = self.ly.disabled = one_d
        glob, loc = self.sizes()
        run = run_query(self.ctx, self.queue, glob, loc, self.query.value)
        self.last, self.runs = run, self.runs + 1
        title = (f"{run.name} for global {' x '.join(map(str, glob))}, local "
                 f"{' x '.join(map(str, loc))} ({run.kernel} on {self.queue.device.name.strip()})")
        if run.problem is not None:
            self.message.value = (f"<p style='color:#a03000;max-width:28em'><b>This range cannot "
                                  f"run:</b> {html.escape(run.problem)}</p>")
            self.picture.clear_output()
        else:
            groups = run.values.size // math.prod(loc)
            self.message.value = (f"<p style='max-width:28em'>Ran <code>{html.escape(run.kernel)}"
                                  f"</code>: {plural(run.values.size, 'work-item')} in "
                                  f"{plural(groups, 'work-group')}.</p>")
            _show(self.picture, plots.ndrange_grid(run.values, loc, title))
        return run


class ThroughputSweep(widgets.VBox):
    """Pick an exercise kernel and the largest size, press the button: GB/s against size, beside
    this device's measured peak bandwidth."""

    def __init__(self, ctx, queue, peak: dict | None = None):
        self.ctx, self.queue, self.peak = ctx, queue, peak
        self.result: dict | None = None
        self.exercise = widgets.Dropdown(options=["sum_ints", "float_copy"], value="sum_ints",
                                         description="kernel")
        self.largest = widgets.IntSlider(value=22, min=12, max=28, description="largest n = 2^",
                                         continuous_update=False,
                                         style={"description_width": "initial"})
        self.button = widgets.Button(description="Run sweep", button_style="primary")
        self.button.on_click(lambda _: self.run())
        self.picture = widgets.Output()
        super().__init__([widgets.HBox([self.exercise, self.largest, self.button]), self.picture])

    def run(self) -> dict:
        sizes = [1 << k for k in range(10, self.largest.value + 1, 2)]
        self.button.disabled = True
        try:
            with self.picture:
                self.result = bench.throughput_sweep(self.ctx, self.queue, self.exercise.value,
                                                     sizes)
            _show(self.picture, plots.throughput_sweep(self.result, self.peak))
        finally:
            self.button.disabled = False
        return self.result


class PipelineExplorer(widgets.VBox):
    """The dual-pipeline model with controls: the program (C/c computation, M/m memory, upper
    case = depends on the previous instruction, | barrier), warps, and each pipeline's issue and
    completion latencies. Draws the schedule and says what bound the run."""

    def __init__(self, program: str = "M C C", warps: int = 4):
        from . import gpu_models
        self._models = gpu_models
        self.program = widgets.Text(value=program, description="program")
        self.warps = widgets.IntSlider(value=warps, min=1, max=32, description="warps")
        self.comp_issue = widgets.FloatSlider(value=1, min=0.25, max=4, step=0.25,
                                              description="λ comp")
        self.comp_latency = widgets.IntSlider(value=10, min=1, max=40, description="Λ comp")
        self.mem_issue = widgets.FloatSlider(value=4, min=0.25, max=16, step=0.25,
                                             description="λ mem")
        self.mem_latency = widgets.IntSlider(value=60, min=1, max=400, description="Λ mem")
        self.picture = widgets.Output()
        controls = [self.program, self.warps, self.comp_issue, self.comp_latency, self.mem_issue,
                    self.mem_latency]
        for c in controls:
            c.continuous_update = False
            c.observe(lambda _: self.update(), names="value")
        super().__init__([widgets.HBox(controls[:2]), widgets.HBox(controls[2:4]),
                          widgets.HBox(controls[4:]), self.picture])
        self.update()

    def update(self):
        m = self._models
        comp = m.Pipeline(self.comp_issue.value, self.comp_latency.value)
        mem = m.Pipeline(self.mem_issue.value, self.mem_latency.value)
        try:
            s = m.simulate(self.program.value, self.warps.value, comp, mem)
        except ValueError as e:
            self.picture.clear_output()
            with self.picture:
                print(e)
            return None
        _show(self.picture, plots.pipeline(
            s, f"{plural(s.cycles, 'cycle', fmt='g')}: {m.bound(s, comp, mem)} (computation busy "
               f"{s.busy('comp', comp):.0%}, memory busy {s.busy('mem', mem):.0%})"))
        return s


class OccupancyCalculator(widgets.VBox):
    """Work-group size, registers per work-item and local memory per work-group against a
    compute unit's limits: how many work-groups fit, and which resource stops the next one."""

    def __init__(self, limits=None):
        from . import gpu_models
        self._models = gpu_models
        self.limits = widgets.Dropdown(options=list(gpu_models.LIMITS),
                                       value=limits or "H100 (Hopper, cc 9.0)",
                                       description="device")
        self.group = widgets.IntSlider(value=256, min=32, max=1024, step=32,
                                       description="work-items")
        self.registers = widgets.IntSlider(value=32, min=8, max=255, description="registers")
        self.local = widgets.IntSlider(value=0, min=0, max=96, description="local KiB")
        self.picture = widgets.Output()
        for c in (self.limits, self.group, self.registers, self.local):
            c.continuous_update = False
            c.observe(lambda _: self.update(), names="value")
        super().__init__([widgets.HBox([self.limits, self.group]),
                          widgets.HBox([self.registers, self.local]), self.picture])
        self.update()

    def update(self):
        m = self._models
        lim = m.LIMITS[self.limits.value]
        try:
            r = m.occupancy(lim, self.group.value, self.registers.value, self.local.value * 1024)
        except ValueError as e:
            self.picture.clear_output()
            with self.picture:
                print(e)
            return None
        _show(self.picture, plots.occupancy(r))
        return r


class WorkGroupSizeExplorer(widgets.VBox):
    """A slider over the measured work-group sizes (from 32 to the device's largest, then
    "NULL", the driver's choice): the figure marks the chosen size on every device's line and
    the text gives its throughput beside the best and the driver's."""

    def __init__(self, series: dict[str, list[dict]]):
        self.series = series
        sizes = sorted({r["local"] for rows in series.values() for r in rows
                        if r.get("local") and r["local"] >= 32})
        self.size = widgets.SelectionSlider(options=[*sizes, "NULL"],
                                            value=256 if 256 in sizes else sizes[0],
                                            description="local size",
                                            continuous_update=False)
        self.size.observe(lambda _: self.update(), names="value")
        self.text = widgets.HTML()
        self.picture = widgets.Output()
        super().__init__([self.size, self.text, self.picture])
        self.update()

    def lines(self) -> list[str]:
        """One sentence per device for the chosen size."""
        chosen = self.size.value
        out = []
        for device, rows in self.series.items():
            at = [r for r in rows if (r.get("local") or "NULL") == chosen]
            best = max(rows, key=lambda r: r["gb_per_s"])
            if not at:
                out.append(f"{device}: {chosen} was not measured (past this device's largest)")
                continue
            where = "the driver's choice" if best.get("local") is None else f"{best['local']}"
            out.append(f"{device}: {at[0]['gb_per_s']:.1f} GB/s "
                       f"({at[0]['gb_per_s'] / best['gb_per_s']:.0%} of the best, "
                       f"{best['gb_per_s']:.1f} GB/s at {where})")
        return out

    def update(self) -> None:
        self.text.value = "<br>".join(html.escape(line) for line in self.lines())
        _show(self.picture, plots.work_group_sizes(self.series, self.size.value))
