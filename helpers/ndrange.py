"""The NDRange and its query functions: what each work-item sees, computed in Python, and the same
values measured on a device with the ``query_work_space`` kernel.

The pure part (:func:`shape_problem`, :func:`quick_test`, and :data:`QUERIES` and
:func:`query_values`, which the exercise's module owns) needs no OpenCL: the exercise's
reference, the quick test and the explorer's sentences come from it.
:func:`run_query` runs the kernel for real: the learner's once it has passed its check, the solution
until then. :func:`group_order` measures in which order a device starts work-groups.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .exercises.query_work_space import QUERIES, as_2d, query_values
from .wording import plural


def work_item_values(global_size: Sequence[int], local_size: Sequence[int],
                     global_id: Sequence[int]) -> dict[str, int]:
    """Every query function's value for one work-item (the answers of the quick test)."""
    gx, gy = as_2d(global_id)
    return {name: int(query_values(global_size, local_size, q)[gy, gx])
            for q, name in enumerate(QUERIES)}


def shape_problem(global_size: Sequence[int], local_size: Sequence[int],
                  max_work_group_size: int, max_work_item_sizes: Sequence[int]) -> str | None:
    """Why a device cannot run this range, in a sentence, or None when it can."""
    glob, loc = tuple(global_size), tuple(local_size)
    if len(glob) != len(loc):
        return (f"The global range has {plural(len(glob), 'dimension')} and the work-group "
                f"{len(loc)}: both must have the same number.")
    if any(x < 1 for x in glob + loc):
        return "Every size must be at least 1."
    items = int(np.prod(loc))
    shown = " x ".join(map(str, loc))
    if items > max_work_group_size:
        return (f"A work-group of {shown} = {plural(items, 'work-item')} is larger than this "
                f"device's maximum of {plural(max_work_group_size, 'work-item')} per group.")
    for d, (x, most) in enumerate(zip(loc, max_work_item_sizes, strict=False)):
        if x > most:
            return (f"The work-group is {plural(x, 'work-item')} wide in dimension {d}, more "
                    f"than this device's maximum of {most} in that dimension.")
    for d, (g, x) in enumerate(zip(glob, loc, strict=True)):
        if g % x:
            return (f"The global size {g} of dimension {d} is not a multiple of the work-group "
                    f"size {x}: the range cannot be split into whole work-groups (round the "
                    f"global size up to {-(-g // x) * x} and let the extra work-items do nothing).")
    return None


def local_choices(global_size: Sequence[int], local_size: Sequence[int], dim: int,
                  max_work_group_size: int, max_work_item_sizes: Sequence[int]) -> list[int]:
    """The local sizes of dimension ``dim`` that make a range this device runs (for which
    :func:`shape_problem` has nothing to say), the other dimensions' local sizes as given: the
    divisors of the global size in that dimension, within the device's width in it and its
    work-group limit. The explorer's sliders offer these and only these."""
    others = math.prod(int(x) for d, x in enumerate(local_size) if d != dim)
    g = int(global_size[dim])
    widest = min(int(max_work_item_sizes[dim]), max_work_group_size // max(others, 1))
    return [x for x in range(1, min(g, widest) + 1) if g % x == 0]


# --------------------------------------------------------------------------------------------------
# The quick test: predict what one work-item gets.

@dataclass(frozen=True)
class QuickTestResult:
    """The learner's predictions marked: ``right``, ``wrong`` and ``unanswered`` names."""

    answers: dict[str, int]
    predictions: dict[str, int | None]
    right: tuple[str, ...]
    wrong: tuple[str, ...]
    unanswered: tuple[str, ...]

    def table(self, reveal: bool = False) -> str:
        lines = []
        for name in QUERIES:
            guess = self.predictions.get(name)
            if name in self.right:
                mark = f"✔ {guess}"
            elif name in self.wrong:
                mark = f"✘ you said {guess}, it is {self.answers[name]}"
            else:
                mark = f"? {self.answers[name]}" if reveal else "? (not answered yet)"
            lines.append(f"{name:<20} {mark}")
        lines.append(f"{len(self.right)} right, {len(self.wrong)} wrong, "
                     f"{len(self.unanswered)} not answered")
        return "\n".join(lines)


def quick_test(predictions: dict[str, int | None], global_size: Sequence[int],
               local_size: Sequence[int], global_id: Sequence[int]) -> QuickTestResult:
    """Mark ``predictions`` (query name -> value, None when not answered) for one work-item."""
    unknown = set(predictions) - set(QUERIES)
    if unknown:
        raise KeyError(f"Not query functions: {', '.join(sorted(unknown))}. Use the names "
                       f"exactly as written: {', '.join(QUERIES)}.")
    answers = work_item_values(global_size, local_size, global_id)
    right = tuple(q for q in QUERIES if predictions.get(q) is not None
                  and predictions[q] == answers[q])
    wrong = tuple(q for q in QUERIES if predictions.get(q) is not None
                  and predictions[q] != answers[q])
    unanswered = tuple(q for q in QUERIES if predictions.get(q) is None)
    return QuickTestResult(answers, dict(predictions), right, wrong, unanswered)


# --------------------------------------------------------------------------------------------------
# On the device.

@dataclass(frozen=True)
class QueryRun:
    """A run of ``query_work_space``: the values, or the sentence saying why it could not run."""

    global_size: tuple[int, ...]
    local_size: tuple[int, ...]
    query: int
    values: np.ndarray | None
    problem: str | None
    kernel: str

    @property
    def name(self) -> str:
        return QUERIES[self.query]


def run_query(ctx, queue, global_size: Sequence[int], local_size: Sequence[int], query: int,
              kernel: Path | None = None) -> QueryRun:
    """Run ``query_work_space`` on the context's device; an impossible range becomes a sentence."""
    import pyopencl as cl

    from .driver_probe import KernelLeftOut
    from .kernels import KernelBuildError, build_file, display_path

    glob, loc = tuple(int(x) for x in global_size), tuple(int(x) for x in local_size)
    if kernel is None:
        from .exercises.passed import kernel_to_measure
        kernel = kernel_to_measure("query_work_space")
    shown = display_path(kernel)
    dev = ctx.devices[0]
    problem = shape_problem(glob, loc, dev.max_work_group_size, dev.max_work_item_sizes)
    if problem is not None:
        return QueryRun(glob, loc, query, None, problem, shown)
    gx, gy = as_2d(glob)
    out_np = np.full(gx * gy, -1, dtype=np.int32)
    try:
        knl = cl.Kernel(build_file(ctx, kernel, reuse=True), "query_work_space")
        out_g = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out_np)
        knl(queue, glob, loc, out_g, np.int32(query))
        cl.enqueue_copy(queue, out_np, out_g)
    except KernelBuildError as e:
        return QueryRun(glob, loc, query, None, f"{shown} does not compile:\n{e}", shown)
    except KernelLeftOut as e:
        return QueryRun(glob, loc, query, None, str(e), shown)
    except cl.Error as e:
        return QueryRun(glob, loc, query, None,
                        f"The device refused this launch: {str(e).splitlines()[0]}", shown)
    return QueryRun(glob, loc, query, out_np.reshape(gy, gx), None, shown)


def group_order(ctx, queue, groups: int, local_size: int) -> np.ndarray:
    """The order in which the device started ``groups`` work-groups: ticket k went to the k-th
    group to start (each group's first work-item takes one with an atomic increment)."""
    import pyopencl as cl

    from .kernels import build_file, kernel_path

    knl = cl.Kernel(build_file(ctx, kernel_path("group_order"), reuse=True), "group_order")
    mf = cl.mem_flags
    tickets_np = np.full(groups, -1, dtype=np.int32)
    tickets_g = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=tickets_np)
    counter_g = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(1, np.int32))
    knl(queue, (groups * local_size,), (local_size,), tickets_g, counter_g)
    cl.enqueue_copy(queue, tickets_np, tickets_g)
    return tickets_np


def group_order_runs(ctx, queue, runs: int = 5, shown: int = 2048, local_size: int = 64) -> dict:
    """The start order of work-groups, ``runs`` times (notebook 03's demo as a recorded
    experiment): 128 groups per compute unit; per run, the share of groups whose ticket equals
    their id and the largest distance between the two; the first ``shown`` tickets of the first
    run, for its picture."""
    from .timing import environment
    groups = 128 * queue.device.max_compute_units
    found = []
    for _ in range(runs):
        tickets = group_order(ctx, queue, groups, local_size)
        if sorted(tickets.tolist()) != list(range(groups)):
            raise AssertionError("group_order: the tickets are not a permutation of the group ids")
        found.append(tickets)
    ids = np.arange(groups)
    return {"experiment": "group_order", "groups": groups, "local_size": local_size,
            "in_order": [float(np.mean(t == ids)) for t in found],
            "largest_distance": [int(np.max(np.abs(t - ids))) for t in found],
            "tickets": found[0][:shown].tolist(), "environment": environment(queue.device)}
