"""Every figure of :mod:`helpers.plots`, drawn from measured results: the H100's (results/reference/) and a
2-core Xeon's (PoCL), as the notebooks draw them, so that the tests of how charts read see the
figures a learner sees (twelve series in one chart, a CPU beside the H100)."""

from __future__ import annotations

import json

import numpy as np

from helpers import gpu_models, plots
from helpers.paths import RESULTS


def result(name: str) -> dict:
    return json.loads((RESULTS / f"{name}.json").read_text())


def _series(rows: list[dict], value: str, scale: float = 1.0) -> dict[str, float]:
    return {r["label"]: r[value] * scale for r in rows}


def lesson(name: str, what: str, values: dict[str, float], ideal: float, model_case: str) -> dict:
    """A technique lesson's figure (plots.model_beside_time) as the H100 would draw it: the warp
    model's counter for each kernel (``values``: role -> what helpers.checking.counters.compare
    counts), beside the times the H100's reference check measured for the same kernels."""
    check = next(c for c in result("checks-nvidia-h100")["checks"]
                 if c["exercise"] == name and "given" in c.get("speed", {}))
    labels = {"given": "the start", "yours": "your kernel", "solution": "the solution"}
    rows = [{"label": labels[role], "role": role, "value": value, "ideal": ideal,
             **{k: check["speed"][role][k] for k in ("seconds", "min_seconds", "max_seconds",
                                                      "repeats")}}
            for role, value in values.items()]
    case = check["speed"]["given"]["case"]
    return {"exercise": name, "what": what, "rows": rows, "model_case": model_case,
            "case": ", ".join(f"{k}={v}" for k, v in case["params"].items()),
            "environment": check["environment"], "available": True}


def figures() -> dict[str, object]:
    """name -> a function that draws the figure (so that each test draws it afresh)."""
    h100 = result("nvidia-h100")["experiments"]
    cpu = result("bench-xeon-2cores-pocl")["experiments"]
    split = result("split-job-nvidia-h100-host")
    comp, mem = gpu_models.Pipeline(issue=1, latency=10), gpu_models.Pipeline(issue=4, latency=60)
    lim = gpu_models.LIMITS["H100 (Hopper, cc 9.0)"]
    wgs = {"Xeon, 2 cores (PoCL)": cpu["work_group_sizes"]["rows"],
           "NVIDIA H100": h100["work_group_sizes"]["rows"]}
    reductions = {"Xeon, 2 cores (made up: the H100's / 80)":
                  _series(h100["reductions"]["rows"], "gb_per_s", 1 / 80),
                  "NVIDIA H100": _series(h100["reductions"]["rows"], "gb_per_s")}
    return {
        "runtime_profile": lambda: plots.runtime_profile(
            result("startup-profile-nvidia-h100")["runs"][0]),
        "ndrange_grid": lambda: plots.ndrange_grid(np.arange(32).reshape(4, 8), (4, 2), "grid"),
        "throughput_sweep": lambda: plots.throughput_sweep(
            cpu["sum_ints_sweep"], cpu["peaks"], reference=h100["sum_ints_sweep"]),
        "roofline": lambda: plots.roofline(cpu["matrix_vector_sweep"], cpu["peaks"],
                                           reference=(h100["matrix_vector_sweep"], h100["peaks"])),
        "throughput_vs_repeat": lambda: plots.throughput_vs_repeat(h100["matrix_vector_sweep"],
                                                                   h100["peaks"]),
        "group_order": lambda: plots.group_order(np.random.default_rng(0).permutation(200),
                                                 "start order"),
        "timings": lambda: plots.timings([(r["exercise"], r["seconds"])
                                          for r in h100["erosion_timings"]["rows"]], "erosion"),
        "pipeline": lambda: plots.pipeline(gpu_models.simulate("c c | c c", 4, comp, mem)),
        "occupancy": lambda: plots.occupancy(gpu_models.occupancy(lim, 256, 128)),
        "sweep_lines ilp": lambda: plots.sweep_lines(
            h100["ilp"]["rows"], "work_items", "gflop_per_s", "ILP", "work-items", "GFLOP/s",
            h100["peaks"]["compute_gflop_per_s"], "measured peak"),
        "sweep_lines mlp (12 series)": lambda: plots.sweep_lines(
            h100["mlp"]["rows"], "work_items", "gb_per_s", "MLP", "work-items", "GB/s",
            h100["peaks"]["bandwidth_gb_per_s"], "measured peak"),
        "compare": lambda: plots.compare(reductions, "parallel sum: GB/s", "GB/s"),
        "compare, linear asked": lambda: plots.compare(reductions, "parallel sum: GB/s", "GB/s",
                                                       log=False),
        "compare, one device in ms": lambda: plots.compare(
            {"NVIDIA H100": _series(h100["sum_end_to_end"]["rows"], "seconds", 1e3)},
            "sum of n ints, end to end", log=False),
        "transfer_bandwidth": lambda: plots.transfer_bandwidth(h100["transfers"],
                                                               reference=h100["transfers"]),
        "timeline": lambda: plots.timeline(h100["overlap"]),
        "device_timeline": lambda: plots.device_timeline(split),
        "tuning_space": lambda: plots.tuning_space(result("tune-amd-epyc-2cores-intel")),
        "rates": lambda: plots.rates(h100["sgemm"]["rows"], h100["peaks"]["compute_gflop_per_s"]),
        "work_group_sizes": lambda: plots.work_group_sizes(wgs, 256),
        "work_group_sizes, one device": lambda: plots.work_group_sizes(
            {"NVIDIA H100": h100["work_group_sizes"]["rows"]}, "NULL"),
        "images": lambda: plots.images({"a": np.eye(8), "b": np.ones((4, 4))}, "images"),
        "model_beside_time": lambda: plots.model_beside_time(lesson(
            "strided_fix", "32-byte sectors per warp request to global memory",
            {"given": 32.0, "solution": 4.0}, 4.0, "n=4096, a=2.5, global 512, local 128")),
        "model_beside_time, three kernels and an ideal of 0": lambda: plots.model_beside_time(
            lesson("spill_fix", "work-item accesses to private memory",
                   {"given": 200802, "yours": 0, "solution": 0}, 0.0,
                   "channels=2049, steps=10, global 2304, local 256")),
    }
