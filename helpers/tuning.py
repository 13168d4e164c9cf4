"""Auto-tuning ``sgemm_param`` (kernels/studies/sgemm.cl) with kernel_tuner: the course's evaluation
harness over the space of :data:`helpers.sgemm.SPACE` (Du et al. 2011, section 7).

kernel_tuner builds and launches every configuration itself, through pyopencl, so the tuning runs
in a child process (:mod:`helpers.apart`, task ``tune``): a driver that crashes on one configuration
ends that child, never the notebook. The child reports each configuration as it starts it (an
event); the parent draws the progress and, at the end, saves the best configuration for the device
(:func:`helpers.sgemm.save_tuned`), which the bench and the notebook then use. kernel_tuner's own
cache file (one per device and size, in the course's cache folder) keeps every configuration timed,
so a second run with a longer budget goes on where the first stopped.

``python -m helpers tune sgemm [--budget SECONDS]`` is the command.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np

from . import apart, cache
from .device import DeviceSpec, choose_device, device_key, find_device
from .paths import ROOT
from .sgemm import SPACE, Config, flops, save_tuned
from .timing import environment, gflop_per_s, small_sizes

STRATEGY = "random_sample"  # kernel_tuner's strategy: a random order over the space, within the budget
TASK = "tune"               # the task of helpers.apart that tunes (tests name another)
START_GRACE = 120.0         # seconds for the child to start, on top of the budget (first builds)


class TuningFailed(RuntimeError):
    """The tuning child ended without a result (a crash, or nothing valid in the space)."""


def default_size() -> int:
    return 128 if small_sizes() else 1024


def cache_file(dev, n: int) -> Path:
    """kernel_tuner's cache for ``dev`` and size ``n``: a JSON file in the course's cache folder."""
    key = re.sub(r"[^A-Za-z0-9]+", "-", device_key(dev)).strip("-")[:80]
    # "median": timed as the bench times (see tune_here); an older cache holds polled means
    return cache.cache_dir() / f"kernel_tuner-sgemm-median-{key}-n{n}.json"


def tune_sgemm(device: str | None = None, budget: float = 60.0, n: int | None = None,
               strategy: str = STRATEGY, spec: dict[str, list[int]] | None = None,
               seed: int | None = None, progress: bool = True, save: bool = True,
               max_results: int | None = None) -> dict:
    """Tune ``sgemm_param`` on an n x n product for at most ``budget`` seconds of search, in a child
    process; return (and, with ``save``, keep for the device) the record: the best configuration,
    its GFLOP/s, and every configuration timed."""
    from tqdm.auto import tqdm

    dev = choose_device(device) if device is None or isinstance(device, str) else device
    n = n or default_size()
    spec = spec or SPACE
    request = {"budget": budget, "n": n, "strategy": strategy, "spec": spec, "seed": seed,
               "max_results": max_results,
               "cache": str(cache_file(dev, n))}
    bar = tqdm(total=int(budget), desc=f"tuning sgemm_param ({budget:.0f} s)", unit="s",
               disable=not progress, delay=1.0)
    started, tried, said = time.perf_counter(), [0], {}

    def on_event(ev: dict) -> None:
        if "config" in ev:
            tried[0] += 1
        else:
            said.update(ev)
        bar.update(min(int(time.perf_counter() - started), int(budget)) - bar.n)
        bar.set_postfix_str(f"{tried[0]} tried")

    key = apart.Key(TASK, json.dumps(DeviceSpec.of(dev).to_json()))
    out = apart.run_once(key, request, timeout=budget + START_GRACE,   # even a silent, hung child
                         on_event=on_event)
    bar.update(int(budget) - bar.n)
    bar.close()
    result = said.get("result")
    if result is None:
        why = said.get("error") or ("it did not finish in time" if out.hung else
                                    f"exit code {out.exit_code}" if out.exit_code is not None
                                    else "no result")
        tail = "\n".join(out.output.strip().splitlines()[-8:])
        raise TuningFailed(f"the tuning of sgemm_param on {dev.name.strip()} ended without a result "
                           f"({why}); its last output:\n{tail}")
    record = {"best": result["best"], "gflop_per_s": result["best_gflop_per_s"], "n": n,
              "strategy": strategy, "budget_s": budget, "seconds": time.perf_counter() - started,
              "tried": result["tried"], "space_size": result["space_size"],
              "kernel_tuner": result["kernel_tuner"], "environment": environment(dev)}
    if save:
        save_tuned(dev, record)
    return record


def summary(record: dict) -> str:
    best = Config.from_json(record["best"])
    ok = [t for t in record["tried"] if t.get("gflop_per_s")]
    return (f"Best of {len(ok)} configurations timed ({record['space_size']} valid in the space, "
            f"{record['strategy']}, {record['seconds']:.0f} s): {record['gflop_per_s']:.1f} GFLOP/s "
            f"at n = {record['n']} with {best.label()}.")


# --------------------------------------------------------------------------------------------------
# The child.

def warm(device: DeviceSpec, emit):
    """The child's start (see :mod:`helpers.apart`, task ``tune``)."""
    return lambda req, emit: tune_here(device, req, emit)


def tune_here(device: DeviceSpec, req: dict, emit) -> None:
    import kernel_tuner
    import pyopencl as cl
    from kernel_tuner.observers.observer import BenchmarkObserver

    from .sgemm import MAX_RESULTS, restrictions, space

    def _emit(event: dict) -> None:
        emit(**event)

    dev = find_device(device)
    platforms = cl.get_platforms()
    p_index = next(i for i, p in enumerate(platforms) if p.int_ptr == dev.platform.int_ptr)
    d_index = next(i for i, d in enumerate(platforms[p_index].get_devices())
                   if d.int_ptr == dev.int_ptr)
    n = int(req["n"])
    spec = {k: list(v) for k, v in req["spec"].items()}
    most = req.get("max_results") or MAX_RESULTS
    valid_count = len(space(dev, spec, most))
    if valid_count == 0:
        _emit({"error": "no valid configuration in the space on this device"})
        return

    rng = np.random.default_rng(req["seed"])
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    c = np.zeros((n, n), np.float32)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    size = np.uint32(n)

    class Tick(BenchmarkObserver):
        """Reports each configuration, and makes kernel_tuner time as the bench does. Left alone,
        kernel_tuner polls the event in a loop while the kernel runs; on a CPU device that loop
        takes a core from the kernel (on 2 cores, one of the two). Waiting on the event right after
        the launch leaves the cores to the kernel; and the objective is the median of the events'
        times (the bench's), not their mean."""

        def __init__(self):
            self.times: list[float] = []

        def register_configuration(self, params):
            _emit({"config": {k: int(v) for k, v in params.items() if k in spec}})

        def after_start(self):
            self.dev.event.wait()

        def after_finish(self):
            event = self.dev.event
            self.times.append((event.profile.end - event.profile.start) * 1e-6)

        def get_results(self):
            times, self.times = self.times, []
            return {"median_ms": float(np.median(times))} if times else {}

    source = (ROOT / "kernels" / "studies" / "sgemm.cl").read_text()
    # the parameters the search leaves out stand at their defaults, so that every rule applies
    every = {**{k: [v] for k, v in Config().to_json().items()}, **spec}
    results, env = kernel_tuner.tune_kernel(
        "sgemm_param", source, (n, n), [a, b, c, size, size, size], every,
        grid_div_x=["TN"], grid_div_y=["TM"], block_size_names=["TX", "TY", "block_size_z"],
        restrictions=restrictions(dev.max_work_group_size, dev.local_mem_size, most),
        answer=[None, None, want, None, None, None],
        atol=1e-3 * n ** 0.5, lang="OpenCL", platform=p_index, device=d_index,
        strategy=req["strategy"],
        strategy_options=(None if req["strategy"] == "brute_force"   # it takes no budget
                          else {"time_limit": float(req["budget"])}),
        cache=req["cache"], iterations=5, quiet=True, observers=[Tick()],
        objective="median_ms", objective_higher_is_better=False,
        metrics={"GFLOP/s": lambda p: gflop_per_s(flops(n, n, n), p["median_ms"] * 1e-3)},
        seed=req["seed"])
    tried, seen = [], set()
    for r in results:   # a guided strategy revisits configurations: each is listed once
        cfg = {k: int(r[k]) for k in spec}
        key = tuple(cfg.values())
        if key in seen:
            continue
        seen.add(key)
        t = r.get("median_ms")
        if isinstance(t, int | float) and np.isfinite(t):
            tried.append({**cfg, "ms": float(t), "gflop_per_s": gflop_per_s(flops(n, n, n), t * 1e-3)})
        else:   # a failed configuration: kernel_tuner puts its error object in "time"
            failed = r.get("__error__", r.get("time"))
            tried.append({**cfg, "error": type(failed).__name__
                          if failed is not None and not isinstance(failed, int | float)
                          else "no time"})
    ok = [t for t in tried if "gflop_per_s" in t]
    if not ok:
        _emit({"error": "no configuration ran", "tried": tried})
        return
    best = max(ok, key=lambda t: t["gflop_per_s"])
    _emit({"result": {"best": {k: best[k] for k in spec}, "best_gflop_per_s": best["gflop_per_s"],
                      "tried": tried, "space_size": valid_count,
                      "kernel_tuner": env.get("kernel_tuner_version", kernel_tuner.__version__)
                      if isinstance(env, dict) else kernel_tuner.__version__}})

