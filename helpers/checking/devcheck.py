"""Every kernel the course ships, run on a device and compared with numpy: ``python -m helpers
devices --check``.

The items are the peak kernels at every vector width, the demo kernels of the notebooks, every
exercise's solution on its small cases (guard bands on) and every performance study at a small size.
Each device is checked in its own child process (:mod:`helpers.workers`, task ``devcheck``): a
driver that crashes on one item takes only that child down; the parent notes the crash, removes what
the crash left in PoCL's kernel cache, and starts a new child for the items left. The outcome is kept
in the course cache per device and driver, with a digest of the course's kernels, and the default
device choice passes over a device that fails (:func:`failures`).

An item's status: ``passed``; ``known``, a wrong result that is one of the course's lessons (a driver
bug the notebooks show, a kernel racy by design); ``wrong``, ``error`` (a build or launch error),
``crashed`` or ``hung``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

import numpy as np
import pyopencl as cl

from .. import cache, driver_facts, driver_probe
from ..device import (
    ONE_LINE_KERNEL,
    DeviceSpec,
    device_key,
    driver_name,
    find_device,
    is_oclgrind,
)
from ..driver_facts import CHECKS, course_digest
from ..kernels import KERNELS, ROOT, SOLUTIONS, build, build_file, solution_file
from ..protocol import Event

ITEM_TIMEOUT = 120.0          # seconds one item may take in the child
mf = cl.mem_flags


class ItemWrong(AssertionError):
    """An item's kernel computed something numpy disagrees with."""


class CannotBuild(RuntimeError):
    """The driver builds not even a one-line kernel on this machine (pip's PoCL 3.0 on a processor
    its LLVM 14 does not know, such as AMD Zen 5: "unknown target CPU 'generic'")."""


FIRST = "build a one-line kernel"   # the first item: a driver that fails it runs nothing else
NOT_RUN = "not run"


def one_line_kernel(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    """A one-line kernel, built and run: a driver that cannot even do this cannot run the course
    on this machine, whatever the kernel (the rest of the check is then not run)."""
    try:
        prg = cl.Program(ctx, ONE_LINE_KERNEL).build()
    except Exception as e:   # pyopencl's own errors, and a KeyError of its cache on some failures
        said = [ln.strip() for ln in str(e).splitlines() if re.search(r"\berror:", ln)]
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise CannotBuild(said[0] if said else f"{type(e).__name__}: {first}") from None
    out = cl.Buffer(ctx, mf.WRITE_ONLY, 16)
    prg.one(queue, (4,), None, out)
    got = np.zeros(4, np.float32)
    cl.enqueue_copy(queue, got, out)
    if not (got == 1.0).all():
        raise ItemWrong("a one-line kernel wrote wrong values")


# --------------------------------------------------------------------------------------------------
# The items. Each runs on (ctx, queue) and raises ItemWrong with a sentence when a result is wrong;
# it returns a note (or None) when all is right, e.g. the driver bugs it met that the course teaches.

def peak_kernels(ctx: cl.Context, queue: cl.CommandQueue, width: int) -> None:
    """The peak kernels at one vector width: both reads and the copy against numpy, the eight
    independent multiply-add chains against numpy's float32 recurrence, the dependent chain written
    by every work-item."""
    from ..measure.peaks import _peak_program
    prg = _peak_program(ctx, width)
    items, per = 64, 5
    x_np = np.random.default_rng().integers(-8, 8, items * per * width).astype(np.float32)
    x_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x_np)
    out_g = cl.Buffer(ctx, mf.WRITE_ONLY, items * 4)
    out_np = np.empty(items, np.float32)
    vecs = x_np.reshape(-1, width)
    strided = vecs.reshape(per, items, width).sum(axis=(0, 2))   # work-item i reads i + j*items
    chunked = vecs.reshape(items, per, width).sum(axis=(1, 2))   # work-item i reads i*per + j
    for name, want in (("read_bandwidth", strided), ("read_bandwidth_chunked", chunked)):
        getattr(prg, name)(queue, (items,), (16,), x_g, out_g, np.uint32(per))
        cl.enqueue_copy(queue, out_np, out_g)
        if not np.array_equal(out_np, want):
            raise ItemWrong(f"{name} summed wrongly")
    copy_g = cl.Buffer(ctx, mf.WRITE_ONLY, x_np.nbytes)
    prg.copy_bandwidth(queue, (items * per,), (16,), x_g, copy_g)
    copied = np.empty_like(x_np)
    cl.enqueue_copy(queue, copied, copy_g)
    if not np.array_equal(copied, x_np):
        raise ItemWrong("copy_bandwidth copied wrongly")
    a, b, rounds = np.float32(0.999), np.float32(1e-3), 3
    prg.mad_throughput(queue, (items,), (16,), out_g, a, b, np.int32(rounds))
    cl.enqueue_copy(queue, out_np, out_g)
    g = np.arange(items, dtype=np.float32) * np.float32(1e-6)
    chains = [g + np.float32(k / 8) for k in range(8)]
    for _ in range(rounds * 16):
        chains = [c * a + b for c in chains]
    want = ((chains[0] + chains[1]) + (chains[2] + chains[3])) \
        + ((chains[4] + chains[5]) + (chains[6] + chains[7]))
    if not np.allclose(out_np, width * want, rtol=1e-4):   # mad may fuse: not bit for bit
        raise ItemWrong("mad_throughput's chains differ from numpy's")
    cl.enqueue_fill_buffer(queue, out_g, np.float32(-1.0), 0, items * 4)
    prg.mad_chain(queue, (items,), (16,), out_g, np.float32(1e-3), np.int32(2))
    cl.enqueue_copy(queue, out_np, out_g)
    if (out_np == -1.0).any():  # every chain starts at values >= 0 and only grows
        raise ItemWrong("mad_chain left elements unwritten")


def demo_scale(ctx: cl.Context, queue: cl.CommandQueue, n: int = 1000) -> None:
    """Notebook 00's y = a x."""
    prg = build(ctx, "scale")
    x_np = np.random.default_rng().uniform(-1, 1, n).astype(np.float32)
    x_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x_np)
    y_g = cl.Buffer(ctx, mf.WRITE_ONLY, x_np.nbytes)
    prg.scale(queue, (-(-n // 64) * 64,), (64,), x_g, y_g, np.float32(2.5), np.uint32(n))
    y_np = np.empty_like(x_np)
    cl.enqueue_copy(queue, y_np, y_g)
    if not np.allclose(y_np, 2.5 * x_np):
        raise ItemWrong("scale: y differs from 2.5 x")


def demo_local_memory(ctx: cl.Context, queue: cl.CommandQueue, block: int = 64,
                      blocks: int = 37) -> None:
    """Notebook 03's two block reversals, with local memory declared in the kernel and passed in."""
    prg = build(ctx, "local_memory")
    x_np = np.random.default_rng().uniform(-1, 1, block * blocks).astype(np.float32)
    x_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x_np)
    expected = x_np.reshape(blocks, block)[:, ::-1].ravel()
    for name, extra in (("reverse_blocks_fixed", ()), ("reverse_blocks",
                                                       (cl.LocalMemory(block * 4),))):
        y_g = cl.Buffer(ctx, mf.WRITE_ONLY, x_np.nbytes)
        getattr(prg, name)(queue, x_np.shape, (block,), x_g, y_g, *extra)
        y_np = np.empty_like(x_np)
        cl.enqueue_copy(queue, y_np, y_g)
        if not np.array_equal(y_np, expected):
            raise ItemWrong(f"{name} did not reverse every block")


def demo_erosion_image(ctx: cl.Context, queue: cl.CommandQueue, width: int = 37, height: int = 21,
                       radius: int = 2) -> str | None:
    """Notebook 03's erosion through an image and a clamp-to-edge sampler, equal to the exercise's
    reference."""
    from ..exercises import Case, get, rounded_up
    if not queue.device.image_support:
        return "no image support: notebook 03 skips this demo"
    img_np = np.random.default_rng().uniform(-100, 100, (height, width)).astype(np.float32)
    case = Case((width, height), (1, 1), {"width": width, "height": height, "radius": radius})
    want = get("erosion_2d").reference(case, {"in": img_np.ravel()})["out"]
    fmt = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
    img_in = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, shape=(width, height),
                             hostbuf=img_np)
    img_out = cl.create_image(ctx, mf.WRITE_ONLY, fmt, shape=(width, height))
    prg = build(ctx, "erosion_image")
    prg.erosion_image(queue, (rounded_up(width, 16), rounded_up(height, 16)), (16, 16), img_in,
                      img_out, np.int32(radius))
    out_np = np.empty_like(img_np)
    cl.enqueue_copy(queue, out_np, img_out, origin=(0, 0), region=(width, height))
    if not np.array_equal(out_np.ravel(), want):
        raise ItemWrong("erosion_image differs from the erosion_2d reference")
    return None


def demo_group_order(ctx: cl.Context, queue: cl.CommandQueue, groups: int = 50) -> None:
    """Notebook 03's tickets: every group takes exactly one."""
    from ..ndrange import group_order
    tickets = group_order(ctx, queue, groups, 16)
    if sorted(tickets) != list(range(groups)):
        raise ItemWrong("group_order: the tickets are not a permutation of the group ids")


def solution(ctx: cl.Context, queue: cl.CommandQueue, name: str) -> None:
    """An exercise's solution on its small cases, with the checker's guard bands and poison (or
    a study record's kernel under kernels/studies/, such as the slow kernel an exercise starts
    from)."""
    from ..exercises import get
    from .worker_side import run_case
    ex = get(name)
    path = KERNELS / "studies" / ex.study_file if ex.study_file else SOLUTIONS / f"{name}.cl"
    knl = getattr(build_file(ctx, path), ex.function)
    seed = int(np.random.default_rng().integers(1 << 31))
    for case in (c for c in ex.cases if c.small):
        facts = run_case(ctx, queue, knl, ex, case, seed, guard=True)
        if not facts["ok"]:
            raise ItemWrong(f"{path.relative_to(ROOT)} ({ex.function}) is wrong in case "
                            f"{case.label()}")


def demo_transfers(ctx: cl.Context, queue: cl.CommandQueue) -> None:
    """Notebook 07's overlap: chunks through one queue and through two, both right."""
    from ..studies.transfers import overlap
    result = overlap(ctx, queue, chunks=4, chunk_bytes=1 << 16, rounds=4)
    for run in result["runs"]:
        if not run["correct"]:
            raise ItemWrong(f"overlap ({run['label']}) differs from numpy")


def study(ctx: cl.Context, queue: cl.CommandQueue, name: str) -> str | None:
    """A performance study or lesson (:mod:`helpers.studies.experiments`) at its small size: every
    kernel's first result against numpy. A wrong result that the course teaches
    (:data:`helpers.studies.KNOWN_WRONG`) is a note, not a failure."""
    from .. import studies
    from ..studies.experiments import EXPERIMENTS
    e = EXPERIMENTS[name]
    prepared = e.prepare(ctx, queue, **e.small)
    known, wrong = [], []
    for p in prepared:
        try:
            p.verify()
        except studies.StudyMismatch as e:
            why = studies.known_wrong(p.kernel, queue.device)
            (known if why else wrong).append(f"{p.kernel}: {why or e}")
    if wrong:
        raise ItemWrong("; ".join(dict.fromkeys(wrong)))
    return "; ".join(dict.fromkeys(known)) or None


def study_sgemm(ctx: cl.Context, queue: cl.CommandQueue) -> str | None:
    """Notebook 14's ladder at a size off every tile, with the default configuration of
    sgemm_param and three extremes of its space (as tests/test_sgemm.py runs them)."""
    from ..studies.sgemm import Config, ladder, valid
    dev = queue.device
    extremes = {"float4, 128x128 tiles": Config(TM=128, TN=128, TK=32, TX=16, TY=16, VW=4),
                "runs of 4, prefetched": Config(TM=128, TN=128, TK=8, TX=16, TY=16, VW=2, VR=4,
                                                PF=1),
                "no local memory": Config(TM=16, TN=16, TK=8, TX=4, TY=4, LOCAL=0)}
    configs = {k: c for k, c in extremes.items()
               if valid(c, dev.max_work_group_size, dev.local_mem_size)}
    for p in ladder(ctx, queue, (37, 53, 29), config=Config(), configs=configs, seed=0):
        p.verify()
    return None


def items() -> dict[str, Callable[[cl.Context, cl.CommandQueue], str | None]]:
    """Every item of the device check, by name."""
    from functools import partial

    from ..bench import PEAK_WIDTHS, vector_name
    from ..exercises import exercises
    from ..studies.experiments import with_small_sizes
    found: dict[str, Callable] = {FIRST: one_line_kernel}
    for w in PEAK_WIDTHS:
        found[f"peaks {vector_name(w)}"] = partial(peak_kernels, width=w)
    found.update({"demo scale": demo_scale, "demo local_memory": demo_local_memory,
                  "demo erosion_image": demo_erosion_image,
                  "demo group_order": demo_group_order, "demo transfers": demo_transfers})
    for ex in exercises():
        if solution_file(ex.name) is not None:   # a graded day's copy has none
            found[f"solution {ex.name}"] = partial(solution, name=ex.name)
        if ex.performance is not None and ex.performance.given:
            record = f"{ex.name}:{ex.performance.given[1]}"
            found[f"given {record}"] = partial(solution, name=record)
    for e in with_small_sizes():
        found[f"study {e.name}"] = partial(study, name=e.name)
    found["study sgemm"] = study_sgemm
    return found


# --------------------------------------------------------------------------------------------------
# The child.

def warm(device: DeviceSpec, emit) -> Callable:
    """The child's start (see :mod:`helpers.workers`, task ``devcheck``): the device's context once;
    each request then runs its items and reports each program built before it runs."""
    driver_probe.CHILD_BUILD_HOOK = lambda key, program: emit(event=Event.BUILD, key=key, program=program)
    dev = find_device(device)
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    everything = items()

    def serve(req: dict, emit) -> None:
        for name in req["items"]:
            emit(event=Event.START, item=name)
            try:
                note = everything[name](ctx, queue)
                emit(event=Event.RESULT, item=name, status="known" if note else "passed", detail=note)
            except ItemWrong as e:
                emit(event=Event.RESULT, item=name, status="wrong", detail=str(e))
            except CannotBuild as e:
                emit(event=Event.RESULT, item=name, status="error", detail=str(e))
            except Exception as e:  # a build or launch error: the driver refused something
                first = (str(e).strip().splitlines() or [type(e).__name__])[0]
                emit(event=Event.RESULT, item=name, status="error",
                     detail=f"{type(e).__name__}: {first}")
    return serve


# --------------------------------------------------------------------------------------------------
# The parent.

def check_device(dev: cl.Device, names: list[str] | None = None, *,
                 item_timeout: float = ITEM_TIMEOUT, progress: bool = True,
                 env: dict[str, str] | None = None) -> dict:
    """Run the items (all by default) on ``dev`` in child processes; record and return the outcome:
    ``{"device", "driver", "course", "date", "items": {name: {"status", "detail"}}}``."""
    from tqdm.auto import tqdm

    from .. import workers
    # the one-line kernel first: a driver that cannot build it runs nothing else
    todo = [FIRST] + [t for t in (names or items()) if t != FIRST]
    results: dict[str, dict] = {}
    built_ok: dict[str, dict] = {}
    crashed_programs: dict[str, dict] = {}
    bar = tqdm(total=len(todo), desc=f"checking {dev.name.strip()[:30]}", disable=not progress,
               delay=1.0, leave=False)
    key = workers.Key("devcheck", json.dumps(DeviceSpec.of(dev).to_json()),
                    tuple(sorted((env or {}).items())))
    while todo:
        current, current_started, last_build = None, time.time(), None

        def on_event(ev: dict) -> float | None:
            nonlocal current, current_started, last_build
            if ev["event"] == Event.START:
                current, current_started, last_build = ev["item"], time.time(), None
                return item_timeout
            if ev["event"] == Event.BUILD:
                if last_build is not None:
                    built_ok[last_build[0]] = last_build[1]
                last_build = (ev["key"], ev["program"])
            elif ev["event"] == Event.RESULT:
                results[ev["item"]] = {"status": ev["status"], "detail": ev.get("detail")}
                if last_build is not None:
                    built_ok[last_build[0]] = last_build[1]
                current, last_build = None, None
                bar.update()
            return None

        # a fresh child each round: one that crashed took only the rest of its round with it
        out = workers.run_once(key, {"items": todo}, timeout=item_timeout + 60,  # start-up included
                             on_event=on_event)
        done = set(results)
        if current is not None and current not in done:  # it crashed or hung in this item
            if out.hung:
                detail = f"did not finish within {item_timeout:.0f} s"
                status = "hung"
            else:
                how, said = workers.crash_summary(out.exit_code, out.output)
                detail = f"the process died ({how})" + (f"; the driver said: {said}"
                                                         if said else "")
                status = "crashed"
                driver_probe.purge_pocl_cache(current_started)
                if last_build is not None:
                    crashed_programs[last_build[0]] = {
                        "ok": False, "crashed": True, "signal": how, "said": said,
                        "stage": "run", "program": last_build[1]}
            results[current] = {"status": status, "detail": detail}
            bar.update()
        elif not out.ended and current is None and len(done) < len(todo):
            nxt = todo[len([t for t in todo if t in done])]
            results[nxt] = {"status": "crashed",
                            "detail": f"the process died before the item began: "
                                      f"{out.output[-300:]}"}
        todo = [t for t in todo if t not in results]
        if results.get(FIRST, {}).get("status") == "error":   # it builds nothing: nothing else
            results.update({t: {"status": NOT_RUN, "detail": None} for t in todo})   # can run
            todo = []
    bar.close()
    outcome = {"device": dev.name.strip(), "driver": driver_name(dev), "course": course_digest(),
               "date": time.strftime("%Y-%m-%d %H:%M:%S"), "items": results}
    if results.get(FIRST, {}).get("status") == "error":    # a build error, not a passing crash
        outcome["unusable"] = results[FIRST]["detail"]
    driver_probe.remember(dev, {k: {"ok": True, "program": v} for k, v in built_ok.items()})
    driver_probe.remember(dev, crashed_programs)
    if names is None:
        try:
            cache.write(CHECKS, {**cache.read(CHECKS), device_key(dev): outcome})
        except OSError:
            pass
    return outcome


def recorded(dev: cl.Device) -> dict | None:
    """The last whole device check of ``dev`` with this driver and these kernels, or None."""
    return driver_facts.recorded(device_key(dev))


def failures(dev: cl.Device) -> list[str]:
    """What ``dev`` is known to fail of the course's kernels (see :func:`helpers.driver_facts.failures`)."""
    return driver_facts.failures(device_key(dev))


def table(outcomes: list[dict]) -> str:
    """The check's table: a line per device, then each item that did not simply pass."""
    lines = []
    header = f"{'device':<34} {'driver':<40} {'passed':>8}  failed"
    lines += [header, "-" * len(header)]
    for o in outcomes:
        if o.get("unusable"):
            lines.append(f"{o['device'][:34]:<34} {o['driver'][:40]:<40}   cannot run here")
            lines.append(f"    {unusable_sentence(o)}")
            continue
        statuses = [r["status"] for r in o["items"].values()]
        ok = sum(s in ("passed", "known") for s in statuses)
        bad = len(statuses) - ok
        lines.append(f"{o['device'][:34]:<34} {o['driver'][:40]:<40} {ok:>4}/{len(statuses):<3}  "
                     f"{bad}")
        for name, r in o["items"].items():
            if r["status"] != "passed":
                label = "known lesson" if r["status"] == "known" else r["status"].upper()
                lines.append(f"    {name}: {label}: {r['detail']}")
    return "\n".join(lines)


def brief(outcomes: list[dict]) -> str:
    """The check in a sentence per device, as an install says it: what ran right, what the course
    leaves out on this driver, and no crash dump (``python -m helpers devices --check`` has them)."""
    lines = []
    for o in outcomes:
        name = f"{o['driver']} ({o['device']})"
        if o.get("unusable"):
            lines.append(unusable_sentence(o))
            continue
        rs = o["items"]
        bad = [n for n, r in rs.items() if r["status"] in driver_facts.FAILING]
        lessons = sum(r["status"] == "known" for r in rs.values())
        line = f"{name}: {len(rs) - len(bad)} of the course's {len(rs)} kernels run right"
        if lessons:
            line += f" ({lessons} of them wrong on purpose: lessons the notebooks show)"
        lines.append(line + ".")
        peaks = [n.split()[1] for n in bad if n.startswith("peaks ")]
        if peaks:
            lines.append(f"  {o['driver']} cannot run the peak kernels on {', '.join(peaks)} on "
                         f"this processor: the course leaves them out of the peaks here.")
        others = [n for n in bad if not n.startswith("peaks ")]
        if others:
            lines.append(f"  {len(others)} fail here ({', '.join(others[:4])}"
                         f"{' ...' if len(others) > 4 else ''}): the course passes this device "
                         f"over; python -m helpers devices --check says why.")
    return "\n".join(lines)


def unusable_sentence(outcome: dict) -> str:
    """One plain sentence for a driver that builds nothing on this machine."""
    return (f"{outcome['driver']} cannot build even a one-line kernel on this processor (it says: "
            f"{outcome['unusable']}), so the course passes it over here and uses the others.")


def check_all(pattern: str | None = None, progress: bool = True) -> list[dict]:
    """Check every device (or those matching ``pattern``), one child process at a time. Oclgrind,
    which simulates every work-item, runs only the peak kernels, the demos and the solutions."""
    from ..device import all_devices, match_devices
    devs = match_devices(pattern) if pattern else all_devices()
    outcomes = []
    for dev in devs:
        names = None
        if is_oclgrind(dev):
            names = [n for n in items() if not n.startswith("study ")]
        outcomes.append(check_device(dev, names, progress=progress))
    return outcomes

