"""Auto-tuning ``sgemm_param`` (kernels/studies/sgemm.cl) with kernel_tuner: the course's evaluation
harness over the space of :data:`helpers.studies.sgemm.SPACE` (Du et al. 2011, section 7).

kernel_tuner builds and launches every configuration itself, through pyopencl, so the tuning runs
in a child process (:mod:`helpers.workers`, task ``tune``): a driver that crashes on one configuration
ends that child, never the notebook. The child reports each configuration when it is done (an
event, with its time or its error); the parent draws the progress from them, builds the record
from them and, at the end, saves the best configuration for the device
(:func:`helpers.studies.sgemm.save_tuned`), which the bench and the notebook then use. kernel_tuner's own
cache file (one per device and size, in the course's cache folder) keeps every configuration timed,
so a second run with a longer budget goes on where the first stopped.

The budget is wall-clock time of the whole call: the child's start, every build, every check
against numpy and every timing. The child starts no configuration that it expects to end past the
budget (it expects each to take as long as the slowest so far); one that overruns anyway is
stopped, with its child, :data:`MARGIN_S` seconds past the budget, and the record keeps every
configuration done before it. So a call returns within its budget plus :data:`MARGIN_S`.

``python -m helpers tune sgemm [--budget SECONDS]`` is the command.
"""

from __future__ import annotations

import json
import math
import re
import time
from pathlib import Path

import numpy as np

from .. import cache, workers
from ..device import DeviceSpec, choose_device, device_key, find_device
from ..paths import ROOT
from ..timing import environment, gflop_per_s, small_sizes
from ..wording import plural
from .sgemm import DEFAULT, SPACE, Config, flops, save_tuned

STRATEGY = "random_sample"  # kernel_tuner's strategy: a random order over the space, within the budget
TASK = "tune"               # the task of helpers.workers that tunes (tests name another)
MARGIN_S = 5.0              # the most a call runs past its budget (notebook 14 says so)
FINISH_S = 0.5              # what the child leaves of the budget to end the search and report
STOP_S = 1.0                # what the parent leaves of the margin to stop a child and finish


class TuningFailed(RuntimeError):
    """The tuning child ended without a result (a crash, or nothing valid in the space)."""


def default_size() -> int:
    return 128 if small_sizes() else 1024


def cache_file(dev, n: int) -> Path:
    """kernel_tuner's cache for ``dev`` and size ``n``: a JSON file in the course's cache folder."""
    key = re.sub(r"[^A-Za-z0-9]+", "-", device_key(dev)).strip("-")[:80]
    # "median": timed as the bench times (see tune_here); an older cache holds polled means
    return cache.cache_dir() / f"kernel_tuner-sgemm-median-{key}-n{n}.json"


class _Heard:
    """What the parent hears of the child: the search's plan, each configuration done (once), how
    it ended; and the progress bar, which counts configurations done against those planned."""

    def __init__(self, bar, budget: float, started: float):
        self.bar, self.budget, self.started = bar, budget, started
        self.tried: list[dict] = []
        self.said: dict = {}
        self.best = 0.0

    def __call__(self, ev: dict) -> None:
        if "planned" in ev:
            self.said.update(ev)
            self.bar.total = ev["planned"]
            self.bar.refresh()
        elif "done" in ev:
            self.tried.append(ev["done"])
            self.best = max(self.best, ev["done"].get("gflop_per_s", 0.0))
            left = self.budget - (time.perf_counter() - self.started)
            self.bar.set_postfix_str(f"best {self.best:.1f} GFLOP/s, {max(left, 0):.0f} s left",
                                     refresh=False)
            self.bar.update(1)
        else:
            self.said.update(ev)

    def close(self, cut: bool) -> str | None:
        """Close the bar where the work ended; the reason the search stopped short, if it did."""
        n, total = len(self.tried), self.said.get("planned")
        stopped = None
        if cut or self.said.get("stopped") == "budget":
            planned = plural(total, "configuration") if total else "? configurations"
            stopped = (f"stopped at the {self.budget:g} s budget after {n} of {planned}"
                       + (" (the one that ran past it was stopped)" if cut else ""))
        elif total is not None and n < total:
            stopped = f"the search ended after {n} of {plural(total, 'configuration')}"
        if stopped:   # the bar already says how many of how many
            self.bar.set_description_str(f"tuning sgemm_param, {stopped.split(' after ')[0]}",
                                         refresh=False)
        if self.tried:   # the time left meant nothing once the search ended
            self.bar.set_postfix_str(f"best {self.best:.1f} GFLOP/s", refresh=False)
        self.bar.close()
        return stopped


def tune_sgemm(device: str | None = None, budget: float = 60.0, n: int | None = None,
               strategy: str = STRATEGY, spec: dict[str, list[int]] | None = None,
               seed: int | None = None, progress: bool = True, save: bool = True,
               max_results: int | None = None) -> dict:
    """Tune ``sgemm_param`` on an n x n product in a child process, for at most ``budget`` seconds
    of wall-clock time in all (plus :data:`MARGIN_S` for a configuration that overruns); return
    (and, with ``save``, keep for the device) the record: the best configuration, its GFLOP/s, and
    every configuration tried."""
    from tqdm.auto import tqdm

    started = time.perf_counter()
    dev = choose_device(device) if device is None or isinstance(device, str) else device
    n = n or default_size()
    spec = spec or SPACE
    # counted in configurations done, against those the search plans (the child says how many);
    # no rate or time to go: configurations differ too much in cost for either to mean anything
    bar = tqdm(total=None, desc=f"tuning sgemm_param ({budget:g} s)", disable=not progress,
               delay=1.0, bar_format="{desc}: {n_fmt} of {total_fmt} configurations |{bar}| "
                                     "{elapsed}{postfix}")
    heard = _Heard(bar, budget, started)
    left = budget - (time.perf_counter() - started)
    request = {"deadline": time.time() + left - FINISH_S, "n": n, "strategy": strategy,
               "spec": spec, "seed": seed, "max_results": max_results,
               "cache": str(cache_file(dev, n))}
    key = workers.Key(TASK, json.dumps(DeviceSpec.of(dev).to_json()))
    # past the budget and its margin the child is stopped, whatever it is doing
    out = workers.run_once(key, request, timeout=left + MARGIN_S - STOP_S, on_event=heard)
    stopped = heard.close(cut=out.hung)
    timed = [t for t in heard.tried if "gflop_per_s" in t]
    if not timed or not (out.ended or out.hung) or "error" in heard.said:
        why = heard.said.get("error") or (
            "it did not finish in time" if out.hung else
            f"exit code {out.exit_code}" if out.exit_code is not None else
            f"the {budget:g} s budget ran out before a configuration was timed"
            if heard.said.get("stopped") == "budget" else "no configuration ran")
        tail = "\n".join(out.output.strip().splitlines()[-8:])
        raise TuningFailed(f"the tuning of sgemm_param on {dev.name.strip()} ended without a result "
                           f"({why}); its last output:\n{tail}")
    best = max(timed, key=lambda t: t["gflop_per_s"])
    record = {"best": {k: best[k] for k in spec}, "gflop_per_s": best["gflop_per_s"], "n": n,
              "strategy": strategy, "budget_s": budget, "seconds": time.perf_counter() - started,
              "stopped": stopped, "tried": heard.tried, "space_size": heard.said["space_size"],
              "kernel_tuner": heard.said["kernel_tuner"], "environment": environment(dev)}
    if save:
        save_tuned(dev, record)
    return record


def summary(record: dict) -> str:
    best = Config.from_json(record["best"])
    ok = [t for t in record["tried"] if t.get("gflop_per_s")]
    stopped = f"; {record['stopped']}" if record.get("stopped") else ""
    return (f"Best of {plural(len(ok), 'configuration')} timed ({record['space_size']} valid in "
            f"the space, "
            f"{record['strategy']}, {record['seconds']:.0f} s{stopped}): "
            f"{record['gflop_per_s']:.1f} GFLOP/s at n = {record['n']} with {best.label()}.")


# --------------------------------------------------------------------------------------------------
# The child.

def warm(device: DeviceSpec, emit):
    """The child's start (see :mod:`helpers.workers`, task ``tune``)."""
    return lambda req, emit: tune_here(device, req, emit)


class _Clock:
    """The child's end of the search (``deadline``, on time.time()), and how long a configuration
    is expected to take: as long as the slowest so far (the first counts half: kernel_tuner runs
    it twice to warm the device up). A configuration kernel_tuner's cache holds costs nothing."""

    def __init__(self, deadline: float):
        self.deadline = deadline
        self.slowest = 0.0

    def allows(self, cost: float) -> bool:
        return time.time() + cost <= self.deadline

    def took(self, seconds: float, warmed_up: bool) -> None:
        self.slowest = max(self.slowest, seconds if warmed_up else seconds / 2)


class _Runner:
    """kernel_tuner's runner, one configuration at a time: each is started only if the clock
    allows it, and reported (``report``) when it is done. A configuration left out is None, as
    kernel_tuner's own runner answers when its budget is spent; the strategy then stops."""

    def __init__(self, inner, clock: _Clock, report):
        self.inner, self.clock, self.report = inner, clock, report
        self.stopped = False

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def run(self, parameter_space, tuning_options) -> list:
        out = []
        for element in parameter_space:
            cached = ",".join(str(v) for v in element) in (tuning_options.cache or {})
            if self.stopped or not self.clock.allows(0.0 if cached else self.clock.slowest):
                self.stopped = True
                out.append(None)
                continue
            warmed_up, t = getattr(self.inner, "warmed_up", True), time.perf_counter()
            result = self.inner.run([element], tuning_options)[0]
            if not cached:
                self.clock.took(time.perf_counter() - t, warmed_up)
            if result is not None:
                self.report(result)
            out.append(result)
        return out


class _Bounded:
    """A kernel_tuner strategy: the named one, run with :class:`_Runner` (so within the clock),
    after telling the parent how many configurations it plans (the space's valid ones)."""

    def __init__(self, name: str, clock: _Clock, report, emit):
        from kernel_tuner.interface import strategy_map
        self.name, self.inner = name, strategy_map[name]
        self.clock, self.report, self.emit = clock, report, emit
        self.runner: _Runner | None = None

    def tune(self, searchspace, runner, tuning_options) -> list:
        import kernel_tuner
        size = searchspace.size
        fraction = (tuning_options.strategy_options or {}).get("fraction", 1.0)
        planned = math.ceil(size * fraction) if self.name == "random_sample" else size
        self.emit({"planned": planned, "space_size": size,
                   "kernel_tuner": kernel_tuner.__version__})
        if size == 0:
            self.emit({"error": "no valid configuration in the space on this device"})
            return []
        self.runner = _Runner(runner, self.clock, self.report)
        # the course's default first: it builds in seconds everywhere, so a search whose random
        # picks take long to build (PoCL spent 77 s on one) still ends with a configuration timed
        default = tuple(DEFAULT.to_json()[k] for k in tuning_options.tune_params)
        first = []
        if searchspace.is_param_config_valid(default):
            first = self.runner.run([default], tuning_options)
            budget = getattr(tuning_options, "budget", None)   # kernel_tuner >= 1.1
            if budget is not None and budget.max_fevals is not None:
                budget.max_fevals += 1   # the strategy meets the default again, from the cache
        results = first + self.inner.tune(searchspace, self.runner, tuning_options)
        unique = {tuple(r[k] for k in tuning_options.tune_params): r for r in results if r}
        return list(unique.values())   # brute_force passes on the runner's Nones


def _problem(n: int, seed: int | None) -> tuple[list, np.ndarray]:
    """The product kernel_tuner times: its arguments and numpy's answer."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    size = np.uint32(n)
    return [a, b, np.zeros((n, n), np.float32), size, size, size], want


def _reporter(spec: dict, n: int, emit):
    """A function that reports each configuration kernel_tuner is done with, once: its median time
    and GFLOP/s, or the name of its error."""
    seen: set[tuple] = set()

    def report(r: dict) -> None:
        cfg = {k: int(r[k]) for k in spec}
        key = tuple(cfg.values())
        if key in seen:   # a guided strategy revisits configurations: each is listed once
            return
        seen.add(key)
        t = r.get("median_ms")
        if isinstance(t, int | float) and np.isfinite(t):
            done = {**cfg, "ms": float(t), "gflop_per_s": gflop_per_s(flops(n, n, n), t * 1e-3)}
        else:   # a failed configuration: kernel_tuner puts its error object in "time"
            failed = r.get("__error__", r.get("time"))
            done = {**cfg, "error": type(failed).__name__
                    if failed is not None and not isinstance(failed, int | float) else "no time"}
        emit({"done": done})
    return report


def tune_here(device: DeviceSpec, req: dict, emit) -> None:
    import kernel_tuner
    import pyopencl as cl
    from kernel_tuner.observers.observer import BenchmarkObserver

    from .sgemm import MAX_RESULTS, restrictions

    def _emit(event: dict) -> None:
        emit(**event)

    dev = find_device(device)
    platforms = cl.get_platforms()
    p_index = next(i for i, p in enumerate(platforms) if p.int_ptr == dev.platform.int_ptr)
    d_index = next(i for i, d in enumerate(platforms[p_index].get_devices())
                   if d.int_ptr == dev.int_ptr)
    n = int(req["n"])
    spec = {k: list(v) for k, v in req["spec"].items()}
    args, want = _problem(n, req["seed"])

    class Tick(BenchmarkObserver):
        """Makes kernel_tuner time as the bench does. Left alone, kernel_tuner polls the event in
        a loop while the kernel runs; on a CPU device that loop takes a core from the kernel (on 2
        cores, one of the two). Waiting on the event right after the launch leaves the cores to the
        kernel; and the objective is the median of the events' times (the bench's), not their
        mean."""

        def __init__(self):
            self.times: list[float] = []

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
    strategy = _Bounded(req["strategy"], _Clock(float(req["deadline"])),
                        _reporter(spec, n, _emit), _emit)
    kernel_tuner.tune_kernel(
        "sgemm_param", source, (n, n), args, every,
        grid_div_x=["TN"], grid_div_y=["TM"], block_size_names=["TX", "TY", "block_size_z"],
        restrictions=restrictions(dev.max_work_group_size, dev.local_mem_size,
                                  req.get("max_results") or MAX_RESULTS),
        answer=[None, None, want, None, None, None],
        atol=1e-3 * n ** 0.5, lang="OpenCL", platform=p_index, device=d_index,
        strategy=strategy,   # a random order over the whole space, as long as the budget allows
        strategy_options={"fraction": 1.0} if req["strategy"] == "random_sample" else None,
        cache=req["cache"], iterations=5, quiet=True, observers=[Tick()],
        objective="median_ms", objective_higher_is_better=False,
        metrics={"GFLOP/s": lambda p: gflop_per_s(flops(n, n, n), p["median_ms"] * 1e-3)},
        seed=req["seed"])
    runner = strategy.runner
    _emit({"stopped": "budget" if runner is not None and runner.stopped else "space"})
