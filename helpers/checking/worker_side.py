"""The child's side of a check: the worker (:mod:`helpers.workers`, task ``check``) that runs a
learner's kernel, because a learner's kernel may crash the process (a wild write on a CPU device) or
never return. It keeps its device's context from one pass to the next, and answers each pass with
events: ``built`` or ``build_error``, then ``start`` and ``result`` for each case, then ``done``.

Every buffer gets guard bands (when ``guard`` is on): the kernel sees a sub-buffer of a larger
allocation whose head and tail hold sentinels. Inputs, outputs and the output's initial contents
(the poison) use three different sentinels, none of which can pass for a result, so the facts can
say "written past the end", "never written" and "read past the end of src" apart. Oclgrind runs
without guards: it checks every access itself, and a sub-buffer would hide the overflow from it.

Bytes, not facts: a case's result is every buffer's bytes, written to a file of the worker's
folder, which the parent judges (:mod:`.judge`) in a process that never ran learner code. The
parent makes the messages a learner reads too.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyopencl as cl

from ..device import DeviceSpec, find_device
from ..exercises import Buffer, Case, Exercise, LocalMem, Scalar, get, load_registry_file
from ..kernels import KernelBuildError, build_source, build_warnings
from ..protocol import Event
from .judge import analyse, case_inputs, sentinel, tail_length


def guard_lengths(dev: cl.Device, buf: Buffer, length: int, max_local: int) -> tuple[int, int]:
    """Guard elements before and after a buffer: the head is a multiple of the device's sub-buffer
    alignment; the tail is longer than any overshoot a launch of these cases can make."""
    item = np.dtype(buf.dtype).itemsize
    align = max(dev.mem_base_addr_align // 8, 4096)
    head = align // item
    return head, tail_length(length, max_local)


class KernelRunError(Exception):
    """The device reported an error while the kernel ran."""


# What local memory starts as in the check's own look for unwritten slots (see .poison): two
# patterns that no result of the course's can hold and that change any sum, minimum or maximum they
# enter (about -3.4e38 and +3.4e38 as floats; -8388609 and 2139095038 as ints). Their difference is
# odd, so that sums of any number of them, wrapped around at 32 bits, still differ.
LOCAL_POISON = (0xFF7FFFFF, 0x7F7FFFFE)

LAUNCH_MARK: list[str] = []   # this request's mark (an Oclgrind pass), from the parent
LAUNCH_CASE: list[dict] = []  # the case being run: named after the mark (its counts' case)


_STDERR_TO: list[str] = []


def stderr_to(name: str) -> None:
    """This worker's stderr (fd 2: Oclgrind's messages, a crash's, Python's) to the file ``name``
    in its own folder, once: its stdout, where a kernel's printf goes, is then the kernel's
    alone, and nothing printed there passes for Oclgrind's."""
    import os
    import sys
    if _STDERR_TO == [name]:
        return
    sys.stderr.flush()
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 2)
    os.close(fd)
    _STDERR_TO[:] = [name]


def launch_ended() -> None:
    """After a launch has ended: what the driver printed is flushed (C's stdio buffers, where
    Oclgrind's counts and the kernel's printf wait), then the request's mark, a line the kernel
    could not know, closes this launch's output (see oclgrind.counts)."""
    if not LAUNCH_MARK:
        return
    import ctypes
    import os
    import sys
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):   # no C library to flush (Windows): Python's own only
        pass
    sys.stdout.flush()
    import json
    os.write(1, f"\n{LAUNCH_MARK[0]} {json.dumps(LAUNCH_CASE[:1])}\n".encode())


def launch(ctx: cl.Context, queue: cl.CommandQueue, knl: cl.Kernel, ex: Exercise, case: Case,
           inputs: dict, guard: bool, extra_args: tuple = ()) -> tuple[dict, dict, dict]:
    """Run one case on ``inputs``; every buffer's whole allocation read back (guard bands
    included), with the guard bands' lengths: (got, head, tail). ``extra_args`` go after the
    contract's (those of an instrumented kernel, see :mod:`.poison`)."""
    dev = ctx.devices[0]
    mf = cl.mem_flags
    args, host, head, tail, whole = [], {}, {}, {}, {}
    max_local = int(np.prod(case.local_size))
    for arg in ex.args:
        if isinstance(arg, (Scalar, LocalMem)):
            args.append(arg.kernel_arg(case))
        else:
            length = arg.length(case)
            h, t = guard_lengths(dev, arg, length, max_local) if guard else (0, 0)
            kind = "input_guard" if arg.role == "in" else "output_guard"
            if arg.role == "out":
                body = sentinel("poison", arg.dtype, length)
            else:
                body = inputs[arg.name].astype(arg.dtype, copy=False).ravel()
            full = np.concatenate([sentinel(kind, arg.dtype, h), body,
                                   sentinel(kind, arg.dtype, t)])
            buf_g = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=full)
            whole[arg.name] = buf_g
            item = full.itemsize
            args.append(buf_g.get_sub_region(h * item, length * item) if guard else buf_g)
            host[arg.name], head[arg.name], tail[arg.name] = full, h, t
    knl(queue, case.global_size, case.local_size, *args, *extra_args)
    try:
        queue.finish()
    except cl.Error as e:  # the kernel started but failed (a GPU's illegal address, say)
        raise KernelRunError(str(e).splitlines()[0]) from None
    launch_ended()
    got = {}
    for bname, buf_g in whole.items():
        got[bname] = np.empty_like(host[bname])
        cl.enqueue_copy(queue, got[bname], buf_g)
    queue.finish()
    return got, head, tail


def run_case(ctx: cl.Context, queue: cl.CommandQueue, knl: cl.Kernel, ex: Exercise, case: Case,
             seed: int, guard: bool) -> dict:
    """Run one case of the course's own kernel (the device check's, a tool's) and judge it here:
    a learner's kernel is judged by the parent instead (see :func:`raw_case`)."""
    inputs = case_inputs(ex, case, seed)
    got, head, tail = launch(ctx, queue, knl, ex, case, inputs, guard)
    expected = ex.reference(case, {k: v.copy() for k, v in inputs.items()})
    return analyse(ex, case, inputs, expected, got, head, tail)


def raw_case(ctx: cl.Context, queue: cl.CommandQueue, knl: cl.Kernel, ex: Exercise, case: Case,
             seed: int, guard: bool, name: str, poisoned: bool = False) -> dict:
    """Run one case of a learner's kernel and write every buffer's bytes, run after run, to the
    file ``name`` in this worker's folder (its working directory), for the parent to judge (see
    :mod:`.judge`); the event's fields that say where its guard bands lie. ``poisoned``: the
    instrumented kernel, run three times on the same inputs (see :func:`poisoned_args`)."""
    inputs = case_inputs(ex, case, seed)
    runs = poisoned_args(ex, case) if poisoned else [()]
    with open(name, "wb") as f:
        for extra in runs:
            got, head, tail = launch(ctx, queue, knl, ex, case, inputs, guard, extra)
            for buf in ex.buffers():
                f.write(np.ascontiguousarray(got[buf.name]).tobytes())
    return {"raw": name, "runs": len(runs), "head": head, "tail": tail}


def warm(device: DeviceSpec, emit) -> callable:
    """The worker's start (see :mod:`helpers.workers`): find the device the parent chose and create
    its context, once; return the function that serves a request."""
    dev = find_device(device)
    ctx = cl.Context([dev])
    queues: dict[bool, cl.CommandQueue] = {}

    def serve(req: dict, emit) -> None:
        speed = bool(req.get("speed"))
        if speed not in queues:
            queues[speed] = cl.CommandQueue(
                ctx, properties=cl.command_queue_properties.PROFILING_ENABLE if speed else 0)
        run_request(ctx, queues[speed], req, emit)
    return serve


def run_request(ctx: cl.Context, queue: cl.CommandQueue, req: dict, emit) -> None:
    """One pass: build the kernel at ``kernel_path``, then run (or time) the request's cases."""
    for extra in req.get("registry_files", []):
        load_registry_file(extra)
    ex = get(req["exercise"])
    path, source = Path(req["kernel_path"]), req["source"]
    LAUNCH_MARK[:] = [req["launch_mark"]] if req.get("launch_mark") else []
    if req.get("diagnostics_to"):
        stderr_to(req["diagnostics_to"])
    try:
        prg = build_source(ctx, source, path, req.get("build_options") or None)
    except KernelBuildError as e:
        emit(event=Event.BUILD_ERROR, message=str(e))
        return
    try:
        knl = getattr(prg, ex.function)
    except AttributeError:
        names = [k.function_name for k in prg.all_kernels()]
        emit(event=Event.NO_KERNEL, expected=ex.function, found=names)
        return
    dev = ctx.devices[0]
    largest = knl.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, dev)
    poisoned = instrumented_kernel(ctx, ex, source, path) if req.get("poison") else None
    emit(event=Event.BUILT, warnings=build_warnings(prg, path, source),
         poison_ready=poisoned is not None if req.get("poison") else None, largest=int(largest))
    if req.get("speed"):
        speed_main(ctx, queue, ex, path, source, req, emit)
        return
    cases = [Case.from_json(c) for c in req["cases"]]
    order, beyond = launch_order([int(np.prod(c.local_size)) for c in cases], largest,
                                 bool(dev.type & cl.device_type.GPU))
    for i in order:
        case = cases[i]
        emit(event=Event.START, case=i)
        items = int(np.prod(case.local_size))
        past, not_run = items > largest, past_the_size(items, largest)
        if past and i not in beyond:   # the contract allows it; this kernel here not
            emit(event=Event.RESULT, case=i, ok=True, not_run=not_run)
            continue
        LAUNCH_CASE[:] = [{"global": list(case.global_size), "params": case.params}]
        try:
            raw = raw_case(ctx, queue, knl if poisoned is None else poisoned, ex, case,
                           req["seed"], req["guard"], f"case-{i}.raw", poisoned is not None)
        except KernelRunError as e:
            if past:   # this one and the rest past the size: not run; the worker spoiled
                emit(event=Event.SPOILED)
                for j in order[order.index(i):]:
                    emit(event=Event.RESULT, case=j, ok=True, not_run=past_the_size(
                        int(np.prod(cases[j].local_size)), largest))
            else:
                emit(event=Event.RUN_ERROR, case=i, message=str(e))
            break  # a GPU context is unusable after such an error
        except cl.Error as e:
            if past:
                emit(event=Event.RESULT, case=i, ok=True, not_run=not_run)
            else:
                emit(event=Event.LAUNCH_ERROR, case=i, message=str(e).splitlines()[0])
            continue
        # the parent judges the bytes (and a run past the size that went wrong is "not run")
        emit(event=Event.RESULT, case=i, **raw, past=not_run if past else None)
    emit(event=Event.DONE)


def past_the_size(items: int, largest: int) -> str:
    return f"work-groups of {items} work-items: this device allows at most {largest} for this kernel"


def launch_order(work_items: list[int], largest: int, on_gpu: bool) -> tuple[list[int], set[int]]:
    """The order to run cases of these work-group sizes in, and which of those past ``largest``
    (the size the driver answers for this kernel) to try all the same. NVIDIA's driver answers 256
    for every kernel (8 to 32 registers alike, measured on the H100) and yet runs them right at
    1024: on a GPU the cases past it are tried, after all the others (a failed launch may leave
    the context unusable), and kept only when they ran and came out right; otherwise they count
    as not run here, and Oclgrind, which the cases a device did not run go to, is their referee.
    A CPU's answer is its limit: its cases past it are not run."""
    within = [i for i, n in enumerate(work_items) if n <= largest]
    past = [i for i, n in enumerate(work_items) if n > largest]
    return within + past, set(past) if on_gpu else set()


def instrumented_kernel(ctx: cl.Context, ex: Exercise, source: str,
                        path: Path) -> cl.Kernel | None:
    """The learner's kernel made to fill its local memory with a pattern first (see
    :mod:`.poison`); None where that cannot be made: no local memory, a signature the contract
    does not know, a source the instrumenting does not understand."""
    from .poison import instrument
    made = instrument(source, ex.function)
    contract = [a for a in ex.args if isinstance(a, LocalMem)]
    if made is None or len(made.local_args) != len(contract):
        return None
    try:
        return getattr(build_source(ctx, made.source, path), ex.function)
    except (KernelBuildError, AttributeError):
        return None


def poisoned_args(ex: Exercise, case: Case) -> list[tuple]:
    """The instrumented kernel's extra arguments for its three runs of a case: local memory
    starting as the first pattern, again, then as the second. The parent then sees
    ``poison_changes`` (the outputs changed with the pattern but not between the two runs of the
    same one: the kernel read local memory that nothing wrote) and ``runs_differ`` (they changed
    from run to run: a race?)."""
    words = tuple(np.uint32(np.dtype(a.dtype).itemsize * max(a.length(case), 1) // 4)
                  for a in ex.args if isinstance(a, LocalMem))
    return [(*words, np.uint32(p)) for p in (LOCAL_POISON[0], LOCAL_POISON[0], LOCAL_POISON[1])]


SPEED_ROUNDS = 3
# the seconds one kernel's timed runs may take in one round (bench.time_exercise's budget_s): a
# GPU's kernels take milliseconds and never reach it; on a 2-core CPU the kernels an exercise
# starts from take up to a third of a second a launch
SPEED_ROUND_BUDGET_S = 1.0


def speed_main(ctx: cl.Context, queue: cl.CommandQueue, ex, path: Path, source: str, req: dict,
               emit) -> None:
    """Time a performance exercise (see :class:`~helpers.exercises.Performance`): this device's
    peaks (measured once, then cached), then the learner's kernel, the solution and the kernel the
    exercise starts from, each on the record's timing case, its first result compared with numpy."""
    from ..bench import gflop_per_s, peaks, share, small_sizes, time_exercise
    from ..kernels import KERNELS

    perf = ex.performance
    case = perf.small if small_sizes() else perf.case
    from .. import driver_probe
    driver_probe.known_here(queue.device, req.get("left_out") or {})   # what crashed this driver before
    # the peaks once, in the learner's pass (a reference pass would only build them again)
    peak = peaks(ctx, queue, progress=False) if "yours" in (req.get("roles") or ["yours"]) \
        and req.get("peak", True) else None
    # The roles this worker times: a learner's worker its kernel alone ("yours"); the course's
    # own worker (the parent's reference pass, no learner code in it) the solution, which it
    # builds as its request's source, and the kernel the exercise starts from.
    roles = req.get("roles") or ["yours"]
    kernels = [("yours", ex.name, path, source)] if "yours" in roles else []
    if "solution" in roles:
        kernels.append(("solution", ex.name, path, source))
    if perf.given and "given" in roles:
        file, function = perf.given
        kernels.append(("given", f"{ex.name}:{function}", KERNELS / "studies" / file, None))
    # Rounds in turn (the solution, the given; again), keeping each kernel's fastest median: a
    # burst of other work on a laptop then slows one round, not one kernel's figure.
    best: dict[str, dict] = {}
    references: dict = {}
    for r in range(int(req.get("rounds") or SPEED_ROUNDS)):
        for i, (role, record, kpath, text) in enumerate(kernels):
            if role in best and "error" in best[role]:
                continue
            emit(event=Event.START, case=r * len(kernels) + i)
            try:
                t = time_exercise(ctx, queue, record, case, kernel=kpath, source=text,
                                  seed=req["seed"],
                                  verify=r == 0, references=references,
                                  budget_s=SPEED_ROUND_BUDGET_S)
            except (AssertionError, cl.Error) as e:
                best[role] = {"error": str(e).splitlines()[0]}
                continue
            medians = best.get(role, {}).get("round_seconds", []) + [t["seconds"]]
            if role not in best or t["seconds"] < best[role]["seconds"]:
                best[role] = t
            best[role]["round_seconds"] = medians   # the spread the verdict compares with
    for t in best.values():
        if "seconds" in t:
            t["gflop_per_s"] = gflop_per_s(perf.flops(case), t["seconds"]) if perf.flops else None
            t["rounds"] = len(t["round_seconds"])
    # A kernel faster than the peak means the peak was measured low: measure it again (the cache
    # keeps the better figures) before any share is printed.
    kind, key = ("compute", "gflop_per_s") if perf.peak == "compute" else ("copy", "gb_per_s")
    fastest = max((t[key] or 0.0 for t in best.values() if "seconds" in t), default=0.0)
    if peak is not None:
        share(fastest, kind, peak, ctx, queue)
        emit(event=Event.PEAK, copy_gb_per_s=peak["copy_bandwidth_gb_per_s"],
             gflop_per_s=peak["compute_gflop_per_s"], measured=peak.get("measured", []),
             left_out=list((peak.get("left_out") or {}).values()))
    for role, t in best.items():
        emit(event=Event.SPEED, role=role, **t)
    emit(event=Event.DONE)

