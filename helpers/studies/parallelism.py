"""Notebook 05: thread-, instruction- and memory-level parallelism (the ILP and MLP studies)."""

from __future__ import annotations

import numpy as np
import pyopencl as cl

from ..exercises import rounded_up
from ..timing import small_sizes
from .harness import (
    Prepared,
    device_output,
    fitting_local,
    kernel,
    launcher,
    run_and_compare,
    seeded_rng,
    to_device,
)

mf = cl.mem_flags


ILP_A, ILP_B = 0.999, 0.001


def _ilp_reference(items: int, chains: int, rounds: int) -> np.ndarray:
    start = (np.arange(min(items, 1024)) * np.float32(1e-3)).astype(np.float32)
    a, b = np.float32(ILP_A), np.float32(ILP_B)
    total = np.zeros_like(start)
    for c in range(chains):
        x = start + np.float32(0.25 * c)
        for _ in range(rounds):
            x = x * a + b
        total = total + x
    reps = -(-items // 1024)
    return np.tile(total, reps)[:items]


def work_item_counts(dev: cl.Device, local: int, steps: int) -> list[int]:
    """Work-items that give each compute unit 1, 2, 4, ... work-groups' worth (TLP axis)."""
    return [dev.max_compute_units * local * (1 << k) for k in range(steps)]


def ilp(ctx: cl.Context, queue: cl.CommandQueue, items: list[int] | None = None,
        rounds: int | None = None, chains: tuple[int, ...] = (1, 2, 3, 4)) -> list[Prepared]:
    """GFLOP/s of 1 to 4 independent chains of multiply-adds per work-item, as the number of
    work-items grows (TLP); each chain is ``rounds`` dependent mads."""
    local = fitting_local(queue, 32)
    if items is None:
        items = work_item_counts(queue.device, local, 4 if small_sizes() else 7)
    rounds = rounds or (256 if small_sizes() else 4096)
    prepared = []
    for c in chains:
        knl = kernel(ctx, "parallelism.cl", "ilp", (f"-DCHAINS={c}",))
        for n in items:
            g = rounded_up(n, local)
            out = device_output(ctx, 4 * g)
            launch = launcher(queue, knl, (g,), (local,), out, np.float32(ILP_A),
                              np.float32(ILP_B), np.uint32(rounds))
            want = _ilp_reference(g, c, rounds)
            prepared.append(Prepared(f"ILP {c}", launch,
                                     run_and_compare(queue, launch, out, g, want, f"ilp {c}",
                                                      rtol=1e-4, atol=1e-4),
                                     bytes=4 * g, flops=2 * c * rounds * g,
                                     params={"chains": c, "work_items": g, "rounds": rounds},
                                     kernel="ilp"))
    return prepared


MLP_CONFIGS = tuple((vec, floats) for floats in (1, 2, 4, 8, 16) for vec in (1, 2, 4)
                    if floats % vec == 0)


# a CPU's run: the five lines its chart draws, over 64 MiB (past any laptop's caches); all twelve
# over 256 MiB took two minutes on a 2-core laptop, beyond notebook 05's minute a cell
MLP_CONFIGS_CPU = ((1, 1), (1, 4), (4, 4), (1, 16), (4, 16))


def mlp(ctx: cl.Context, queue: cl.CommandQueue, floats_total: int | None = None,
        items: list[int] | None = None, configs: tuple[tuple[int, int], ...] | None = None,
        seed: int | None = None) -> list[Prepared]:
    """GB/s of reads with 1 to 16 floats in flight per work-item (as float, float2 or float4
    loads), as the number of work-items grows (every configuration on a GPU, five on a CPU)."""
    local = fitting_local(queue, 64)
    cpu = bool(queue.device.type & cl.device_type.CPU)
    if configs is None:
        configs = MLP_CONFIGS_CPU if cpu else MLP_CONFIGS
    if floats_total is None:
        floats_total = (1 << 22) if small_sizes() else (1 << 24) if cpu else (1 << 26)
    if items is None:
        items = work_item_counts(queue.device, local, 3 if small_sizes() else 6)
    src_np = seeded_rng(seed).uniform(0, 1, floats_total).astype(np.float32)
    src = to_device(ctx, src_np)
    prepared = []
    for vec, floats in configs:
        loads = floats // vec
        type_name = "float" if vec == 1 else f"float{vec}"
        knl = kernel(ctx, "parallelism.cl", "mlp",
                     (f"-DVEC={type_name}", f"-DWIDTH={vec}", f"-DLOADS={loads}"))
        count = floats_total // vec
        per_vector = src_np[:count * vec].reshape(count, vec).sum(axis=1, dtype=np.float64)
        for n in items:
            g = rounded_up(n, local)
            out = device_output(ctx, 4 * g)
            whole = count // g * g      # work-item j sums vectors j, j + g, ... below count
            want = per_vector[:whole].reshape(-1, g).sum(axis=0)
            want[:count - whole] += per_vector[whole:]
            launch = launcher(queue, knl, (g,), (local,), src, out, np.uint32(count))
            label = f"{loads} x {type_name}"
            prepared.append(Prepared(label, launch,
                                     run_and_compare(queue, launch, out, g, want, label,
                                                      rtol=1e-3, atol=1e-3),
                                     bytes=4 * floats_total + 4 * g,
                                     params={"vector": vec, "loads": loads, "floats": floats,
                                             "work_items": g}, kernel="mlp"))
    return prepared
