"""The one registry of the course's measured experiments, in the notebooks' order: what
``python -m helpers bench`` runs (:func:`run_all`, :func:`summary`), and, for the studies and
lessons, the small sizes the device check and the tests' first size run them at.

An experiment is one :class:`Experiment`: its name, the function that measures it (a result dict
with its provenance), and, for a study or a lesson, the function that prepares its kernels and its
small sizes. Adding one is one line in :data:`EXPERIMENTS`; its functions live in the module of its
notebook (:mod:`.bench` for notebooks 01-04, :mod:`.studies`, :mod:`.lessons`, :mod:`.sgemm`,
:mod:`.transfers`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pyopencl as cl

from .. import bench, ndrange, studies
from ..timing import environment, small_sizes
from ..wording import plural
from . import lessons, transfers
from .harness import experiment
from .sgemm import sgemm_experiment

Measure = Callable[[cl.Context, cl.CommandQueue], dict]


@dataclass(frozen=True)
class Experiment:
    name: str
    run: Measure                                         # measures it: a result with provenance
    prepare: Callable | None = None                      # a study's or lesson's kernels, prepared
    small: dict = field(default_factory=dict)            # prepare's small sizes (device check)


def _study(name: str, where, small: dict | None = None, run: Measure | None = None
           ) -> Experiment:
    """A study or lesson of ``where`` whose preparing function is named like it."""
    prepare = getattr(where, name)
    return Experiment(name, run or experiment(name, prepare), prepare, small or {})


def _images(ctx: cl.Context, queue: cl.CommandQueue) -> dict:
    import numpy as np
    found = lessons.images(ctx, queue)
    return {"experiment": "images", **{k: v for k, v in found.items()
                                       if not isinstance(v, np.ndarray)}}


_S = studies
EXPERIMENTS: dict[str, Experiment] = {e.name: e for e in (
    # notebooks 01-04 (the bench's own)
    Experiment("peaks", lambda ctx, queue: bench.measure_peaks(ctx, queue, progress=False)),
    Experiment("sum_ints_sweep", lambda ctx, queue: bench.throughput_sweep(
        ctx, queue, "sum_ints", progress=False)),
    Experiment("erosion_timings", bench.erosion_timings),
    Experiment("erosion_radii", bench.erosion_radii),
    Experiment("group_order", lambda ctx, queue: ndrange.group_order_runs(ctx, queue)),
    Experiment("matrix_vector_sweep", lambda ctx, queue: bench.matrix_vector_sweep(
        ctx, queue, progress=False)),
    Experiment("transfers", lambda ctx, queue: transfers.bandwidth(ctx, queue)),
    Experiment("overlap", lambda ctx, queue: transfers.overlap(ctx, queue)),
    # notebooks 05-13 and 15 (the studies)
    _study("ilp", _S, dict(items=[64, 200], rounds=40)),
    _study("mlp", _S, dict(floats_total=10000, items=[64, 320])),
    _study("strides", _S, dict(n=4096)),
    _study("layouts", _S, dict(n=1000)),
    _study("transpose", _S, dict(width=100, height=70)),
    _study("divergence", _S, dict(n=37)),
    _study("constant_memory", _S, dict(n=1000)),
    _study("fast_math", _S, dict(n=1000, rounds=5)),
    _study("reductions", _S, dict(n=10001)),
    Experiment("sum_end_to_end", _S.sum_end_to_end),
    _study("matvec", _S, dict(width=300, height=77), run=_S.matvec_experiment),
    _study("hotspot", _S, dict(width=100, height=70, steps=4, per_launch=(1, 2))),
    _study("contention", _S, dict(counters=(1, 32), rounds=4)),
    _study("histograms", _S, dict(n=5000, nbins=37), run=_S.advanced.histogram_experiment),
    Experiment("sum_single_pass", _S.sum_single_pass),
    # the lessons of notebooks 02, 03, 05 and 06
    _study("work_group_sizes", lessons, dict(n=1000, sizes=[1, 32, 64])),
    _study("registers", lessons, dict(channels=300, steps=20)),
    _study("banks", lessons, dict(items=512, reads=8)),
    _study("integer_division", lessons, dict(n=1000, rounds=5)),
    Experiment("product_error", lambda ctx, queue: {"experiment": "product_error",
                                                    **lessons.product_error(ctx, queue)}),
    Experiment("images", _images),
    Experiment("split_work", lambda ctx, queue: {"experiment": "split_work",
                                                 **lessons.split_work(ctx, queue,
                                                                      shares=(0.5, 0.9))}),
    # notebook 14
    Experiment("sgemm", sgemm_experiment),
)}

# the bench's names for two experiments whose study has another name (kept: results/ use them)
BENCH_NAMES = {"matvec": "matvec_ladder", "histograms": "histogram"}


def bench_name(e: Experiment) -> str:
    return BENCH_NAMES.get(e.name, e.name)


def by_bench_name() -> dict[str, Experiment]:
    """Every experiment by the name ``python -m helpers bench --only`` and the results use."""
    return {bench_name(e): e for e in EXPERIMENTS.values()}


def with_small_sizes() -> list[Experiment]:
    """The studies and lessons the device check runs, at their small sizes."""
    return [e for e in EXPERIMENTS.values() if e.prepare is not None]


def run_all(device: str | None = None, names: list[str] | None = None) -> dict:
    """Run the experiments (all by default) on one device, with a progress bar; the result holds
    each experiment's own provenance and the run's."""
    from tqdm.auto import tqdm

    from ..device import course_context

    ctx, queue = course_context(device, quiet=True)
    known = by_bench_name()
    chosen = names or list(known)
    results = {}
    for name in tqdm(chosen, "bench"):
        results[name] = known[name].run(ctx, queue)
    return {"experiments": results, "small_sizes": small_sizes(),
            "environment": environment(queue.device)}


def summary(run: dict) -> str:
    """A short table of a bench run."""
    ex = run["experiments"]
    dev = run["environment"]["device"]
    lines = [f"{dev['device']} ({dev['platform']}, driver {dev['driver_version']})"]
    if "peaks" in ex:
        p = ex["peaks"]
        lines.append(f"  peaks: read/copy bandwidth {p['bandwidth_gb_per_s']:.1f} GB/s, "
                     f"compute {p['compute_gflop_per_s']:.1f} GFLOP/s")
    if "sum_ints_sweep" in ex:
        best = max(ex["sum_ints_sweep"]["points"], key=lambda q: q["gb_per_s"])
        lines.append(f"  sum_ints: best {best['gb_per_s']:.1f} GB/s at n = {best['n']:,}")
    if "erosion_timings" in ex:
        for row in ex["erosion_timings"]["rows"]:
            lines.append(f"  {row['exercise']:<18} {row['seconds'] * 1e3:9.3f} ms "
                         f"({row['gb_per_s']:.1f} GB/s)")
    if "matrix_vector_sweep" in ex:
        mv = ex["matrix_vector_sweep"]
        cross = mv["crossover_repeat"]
        lines.append(f"  matrix_vector: crossover at N = {cross:.1f}" if cross else
                     "  matrix_vector: memory-bound at every N measured")
        for q in mv["points"]:
            lines.append(f"    N={q['repeat']:<5} {q['seconds'] * 1e3:9.3f} ms "
                         f"{q['gb_per_s']:8.1f} GB/s {q['gflop_per_s']:9.1f} GFLOP/s")
    if "transfers" in ex:
        rows = ex["transfers"]["rows"]
        top = max(r["bytes"] for r in rows)
        for r in rows:
            if r["bytes"] == top:
                lines.append(f"  transfers of {top / 2**20:.0f} MiB, {r['kind']:<24} up "
                             f"{r['h2d_gb_per_s']:7.1f} GB/s, down {r['d2h_gb_per_s']:7.1f} GB/s")
    if "overlap" in ex:
        for r in ex["overlap"]["runs"]:
            lines.append(f"  overlap, {r['label']:<22} {r['seconds'] * 1e3:9.3f} ms")
    for name, result in ex.items():
        if isinstance(result.get("rows"), list) and name not in ("erosion_timings", "transfers"):
            lines.append(f"  {name}:")
            for row in result["rows"]:
                extra = "" if row.get("correct", True) else "  WRONG on this device"
                where = f" x{row['work_items']}" if "work_items" in row else ""
                launch = (f" [{row['launch']}, {plural(row['groups'], 'group')}]" if "launch" in row
                          else "")
                if "gb_per_s" in row and name != "sgemm":
                    rate = f"{row['gb_per_s']:8.1f} GB/s"
                elif "gflop_per_s" in row:
                    rate = f"{row['gflop_per_s']:9.1f} GFLOP/s"
                    where = f" n={row['n']}" if "n" in row else where
                else:   # a wall-clock time only (host and device at once)
                    rate = ""
                lines.append(f"    {row['label'][:60] + where + launch:<58} "
                             f"{row['seconds'] * 1e3:9.3f} ms {rate}{extra}")
    return "\n".join(lines)
