"""The device's peaks, the yardstick of every "% of peak" in the course: global-memory bandwidth
(reads and copies at float to float16, as clpeak measures them) and arithmetic throughput (eight
independent chains of multiply-adds per work-item, which fill a CPU's vector pipelines as well as
a GPU's), each beside independent references (:mod:`helpers.measure.references`).

The cache keeps the best peaks ever measured per device and driver: a busy laptop's slow first
measurement is replaced by a faster later one, never the other way round. A share above 100% is
not printed: :func:`share` measures the peaks again, and if the kernel still beats them it says
which yardstick failed.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from ..device import device_key
from ..driver_probe import KernelLeftOut
from ..kernels import KernelBuildError
from ..paths import HELPERS_CL
from ..timing import (
    Busy,
    environment,
    event_seconds,
    gb_per_s,
    gflop_per_s,
    left_out_sentence,
    small_sizes,
    time_kernel,
)
from . import references as refs

PEAK_WIDTHS = (1, 2, 4, 8, 16)
PEAKS_CACHE = "peaks"
PEAKS_SOURCE = HELPERS_CL / "peaks.cl"
CHAINS = 8                 # independent chains per work-item in mad_throughput
MADS_PER_ROUND = {"mad_throughput": 16 * CHAINS, "mad_chain": 32}
TARGET_SECONDS = 0.01      # a compute launch is made at least this long (rounds doubled up to it)
REFRESH = "bench.peaks(ctx, queue, refresh=True)"


def vector_name(width: int) -> str:
    """``float`` for 1, ``float4`` for 4."""
    return "float" if width == 1 else f"float{width}"


def _peak_program(ctx: cl.Context, width: int) -> cl.Program:
    from ..kernels import build_file
    return build_file(ctx, PEAKS_SOURCE, [f"-DVEC={vector_name(width)}", f"-DWIDTH={width}"],
                      reuse=True)


def _compute_rate(queue: cl.CommandQueue, knl: cl.Kernel, name: str, items: int, local: int,
                  out_g: cl.Buffer, width: int, repeats: int) -> tuple[float, int]:
    """GFLOP/s of one compute kernel, its rounds grown until a launch lasts :data:`TARGET_SECONDS`
    (a fixed count would be a millisecond on one device and seconds on another); and the rounds."""
    args = (np.float32(0.999), np.float32(1e-3)) if name == "mad_throughput" else (np.float32(1e-3),)

    def launch(rounds: int):
        return knl(queue, (items,), (local,), out_g, *args, np.int32(rounds))

    rounds = 4
    launch(rounds).wait()                 # a CPU compiles its work-group function here
    while rounds < (1 << 16):
        t = event_seconds(launch(rounds))
        if t >= TARGET_SECONDS:
            break
        rounds *= 2 if t > TARGET_SECONDS / 4 else 8
    t = time_kernel(lambda: launch(rounds), warmup=0, repeats=repeats)
    flops = items * rounds * MADS_PER_ROUND[name] * 2 * width
    return gflop_per_s(flops, t.median), rounds


def _bandwidths(queue: cl.CommandQueue, prg: cl.Program, width: int, floats: int, work_items: int,
                local: int, buffers: tuple[cl.Buffer, cl.Buffer, cl.Buffer], repeats: int
                ) -> tuple[float, float]:
    """GB/s reading (the better of the two read kernels) and copying ``floats`` floats as vectors
    of ``width``; ``buffers``: the input, the read kernels' output, the copy's output."""
    in_g, out_g, copy_g = buffers
    per = floats // width // work_items
    used = per * work_items * width * 4
    read = 0.0
    for kernel_name in ("read_bandwidth", "read_bandwidth_chunked"):
        knl = cl.Kernel(prg, kernel_name)
        t = time_kernel(lambda knl=knl: knl(queue, (work_items,), (local,), in_g, out_g,
                                            np.uint32(per)),
                        warmup=1, repeats=repeats)
        read = max(read, gb_per_s(used, t.median))
    vectors = floats // width // local * local
    knl = cl.Kernel(prg, "copy_bandwidth")
    t = time_kernel(lambda: knl(queue, (vectors,), (local,), in_g, copy_g), warmup=1,
                    repeats=repeats)
    return read, gb_per_s(2 * vectors * width * 4, t.median)


def _measure_widths(ctx: cl.Context, queue: cl.CommandQueue, sizes: tuple, buffers: tuple,
                    into: tuple, bar) -> None:
    """Each vector width's bandwidths and compute rates, into ``into``'s dicts (read, copy,
    compute, chain, rounds, left_out); a width the driver cannot build is left out, said once."""
    floats, work_items, local, compute_items, repeats = sizes
    in_g, out_g, copy_g, compute_out_g = buffers
    read, copy, compute, chain, rounds, left_out = into
    for width in PEAK_WIDTHS:
        try:
            prg = _peak_program(ctx, width)
        except (KernelLeftOut, KernelBuildError) as e:
            left_out[width] = left_out_sentence(f"{vector_name(width)} left out of the peaks", e)
            print(left_out[width])
            bar.update(1)
            continue
        read[width], copy[width] = _bandwidths(queue, prg, width, floats, work_items, local,
                                               (in_g, out_g, copy_g), repeats)
        compute[width], rounds[width] = _compute_rate(
            queue, cl.Kernel(prg, "mad_throughput"), "mad_throughput", compute_items, local,
            compute_out_g, width, repeats)
        chain[width], _ = _compute_rate(queue, cl.Kernel(prg, "mad_chain"), "mad_chain",
                                        compute_items, local, compute_out_g, width, repeats)
        bar.update(1)


def measure_peaks(ctx: cl.Context, queue: cl.CommandQueue, *, nbytes: int | None = None,
                  repeats: int = 5, progress: bool = True, with_references: bool = True) -> dict:
    """Measure this device's peaks: read and copy bandwidth at float, float2, ..., float16;
    GFLOP/s of eight independent multiply-add chains per work-item at the same widths (the
    yardstick), and of one dependent chain (latency, for comparison); and, with
    ``with_references``, the independent references of this machine.

    :arg nbytes: bytes the bandwidth kernels read (default 256 MiB, 32 MiB with the small switch,
        never more than an eighth of the device's memory).
    """
    from tqdm.auto import tqdm

    dev = queue.device
    if nbytes is None:
        nbytes = (32 << 20) if small_sizes() else (256 << 20)
    nbytes = min(nbytes, dev.global_mem_size // 8, dev.max_mem_alloc_size)
    floats = nbytes // 4
    mf = cl.mem_flags
    in_g = cl.Buffer(ctx, mf.READ_ONLY, floats * 4)
    cl.enqueue_fill_buffer(queue, in_g, np.float32(1.0), 0, floats * 4).wait()
    copy_g = cl.Buffer(ctx, mf.WRITE_ONLY, floats * 4)
    local = min(256, dev.max_work_group_size)
    # Enough work-items to fill the device many times over, each reading `per` vectors.
    work_items = min(dev.max_compute_units * 2048, floats // 16) // local * local
    out_g = cl.Buffer(ctx, mf.WRITE_ONLY, max(work_items, 1) * 4)
    compute_items = max(dev.max_compute_units * local * 16, local)
    compute_out_g = cl.Buffer(ctx, mf.WRITE_ONLY, compute_items * 4)
    read, copy, compute, chain, rounds = {}, {}, {}, {}, {}
    left_out: dict[int, str] = {}
    # one step per width, and one for the references: the bar ends when the work does
    bar = tqdm(total=len(PEAK_WIDTHS) + bool(with_references), desc="device peaks",
               disable=not progress, delay=1.0, leave=False)
    with Busy() as busy:
        _measure_widths(ctx, queue, (floats, work_items, local, compute_items, repeats),
                        (in_g, out_g, copy_g, compute_out_g),
                        (read, copy, compute, chain, rounds, left_out), bar)
    if not compute:
        bar.close()
        raise KernelLeftOut("No peak could be measured: " + " ".join(left_out.values()), {})
    env = environment(dev)
    result = {
        "experiment": "peaks", "left_out": left_out, "busy": busy.sentence(),
        "read_gb_per_s": read, "copy_gb_per_s": copy, "gflop_per_s": compute,
        "chain_gflop_per_s": chain,
        # bytes moved per second, reading alone or copying (read + write), whichever is higher
        "bandwidth_gb_per_s": max(max(read.values()), max(copy.values())),
        "copy_bandwidth_gb_per_s": max(copy.values()),
        "compute_gflop_per_s": max(compute.values()),
        "compute_kernel": f"mad_throughput: {CHAINS} independent chains of multiply-adds per "
                          f"work-item",
        "bytes": int(floats * 4), "work_items": int(work_items), "compute_items": int(compute_items),
        "rounds": rounds, "repeats": repeats, "environment": env,
        "measured": [env["date"]],
    }
    if with_references:
        bar.set_description("device peaks: the references")
        result["references"] = refs.references(dev, env["device"], small=small_sizes())
        bar.update(1)
    bar.close()
    return result


# --------------------------------------------------------------------------------------------------
# The cache: the best ever measured.

_PER_WIDTH = ("read_gb_per_s", "copy_gb_per_s", "gflop_per_s", "chain_gflop_per_s")


def best_of(old: dict, new: dict) -> dict:
    """The peaks of two measurements of one device and driver, each figure the better of the two
    (per vector width); references likewise by label. The environment is the newest's, and
    ``measured`` lists the dates of every measurement merged."""
    if old.get("bytes") != new.get("bytes"):
        # another buffer size measures another thing (a small buffer may sit in a cache): the
        # larger one is the memory's bandwidth
        return dict(new) if new.get("bytes", 0) >= old.get("bytes", 0) else dict(old)
    merged = dict(new)
    for key in _PER_WIDTH:
        widths = set(old.get(key, {})) | set(new.get(key, {}))
        merged[key] = {w: max(old.get(key, {}).get(w, 0.0), new.get(key, {}).get(w, 0.0))
                       for w in sorted(widths)}
    merged["bandwidth_gb_per_s"] = max(max(merged["read_gb_per_s"].values()),
                                       max(merged["copy_gb_per_s"].values()))
    merged["copy_bandwidth_gb_per_s"] = max(merged["copy_gb_per_s"].values())
    merged["compute_gflop_per_s"] = max(merged["gflop_per_s"].values())
    by_label = {r["label"]: r for r in old.get("references", [])}
    for r in new.get("references", []):
        was = by_label.get(r["label"])
        value_key = "gflop_per_s" if "gflop_per_s" in r else "bandwidth_gb_per_s"
        # a theoretical figure is computed, not measured: the newest computation holds
        if was is None or r["kind"] == "theoretical" or r.get(value_key, 0) >= was.get(value_key, 0):
            by_label[r["label"]] = r
    merged["references"] = list(by_label.values())
    # "busy" stays only while no measurement was quiet: a quiet one's figures are in the best
    merged["busy"] = new.get("busy") if old.get("busy") and new.get("busy") else None
    merged["measured"] = old.get("measured", [old.get("environment", {}).get("date")]) \
        + new.get("measured", [])
    merged["left_out"] = {w: why for w, why in new.get("left_out", {}).items()
                          if not merged["gflop_per_s"].get(w)}   # a width the old run measured
    return merged


def _from_json(result: dict) -> dict:
    for name in (*_PER_WIDTH, "left_out", "rounds"):
        result[name] = {int(k): v for k, v in result.get(name, {}).items()}  # JSON: str keys
    return result


_MEASURED_AGAIN: set[str] = set()   # devices whose busy peaks this process measured again


def peaks(ctx: cl.Context, queue: cl.CommandQueue, *, refresh: bool = False,
          progress: bool = True) -> dict:
    """This device's peaks (see :func:`measure_peaks`): measured once, then read from the course's
    cache (one entry per device and driver). ``refresh=True`` measures again, and the cache keeps
    whichever figures are better. A record from before the independent-chain yardstick is measured
    again."""
    from .. import cache

    key = device_key(queue.device)
    stored = cache.read(PEAKS_CACHE).get(key)
    if stored is not None and "chain_gflop_per_s" not in stored:
        stored = None          # measured with the old, latency-bound compute kernel
    if stored is not None and stored.get("busy") and key not in _MEASURED_AGAIN:
        _MEASURED_AGAIN.add(key)    # measured while the machine was busy: once more, now
        refresh = True
    if not refresh and stored is not None:
        result = _from_json(stored)
        for sentence in result["left_out"].values():  # said again whenever the peaks are used
            print(sentence)
        return result
    result = measure_peaks(ctx, queue, progress=progress)
    if stored is not None:
        result = best_of(_from_json(stored), result)
    try:
        cache.write(PEAKS_CACHE, {**cache.read(PEAKS_CACHE), key: result})
    except OSError:
        pass
    return result


def when(peak: dict) -> str:
    """When these peaks were measured, and how to measure them again."""
    dates = [d for d in peak.get("measured", []) if d]
    if not dates:
        return f"{REFRESH} measures them again"
    last = datetime.datetime.fromisoformat(dates[-1]).strftime("%Y-%m-%d %H:%M UTC")
    count = f"the best of {len(dates)} measurements, the last" if len(dates) > 1 else "measured"
    return f"{count} {last}; {REFRESH} measures again"


def ridge_point(peak: dict) -> float:
    """FLOP per byte where the roofline's two limits meet: below it a kernel is memory-bound."""
    return peak["compute_gflop_per_s"] / peak["bandwidth_gb_per_s"]


# --------------------------------------------------------------------------------------------------
# Shares of a peak.

KINDS = {"bandwidth": ("bandwidth_gb_per_s", "bandwidth", "GB/s"),
         "copy": ("copy_bandwidth_gb_per_s", "copy bandwidth", "GB/s"),
         "compute": ("compute_gflop_per_s", "multiply-add peak", "GFLOP/s")}


@dataclass(frozen=True)
class Share:
    """A rate as a share of a peak; ``failed`` when the rate beats the peak even after the peak was
    measured again, so that the yardstick, not the kernel, is what the sentence is about."""

    value: float
    peak: float
    kind: str
    failed: bool = False

    @property
    def fraction(self) -> float | None:
        return None if self.failed or not self.peak else self.value / self.peak

    def short(self) -> str:
        """``62%``, or ``above the peak``."""
        return "above the peak" if self.failed else f"{self.fraction:.0%}" if self.peak else "?"

    def __str__(self) -> str:
        _, name, unit = KINDS[self.kind]
        if not self.peak:
            return f"this device's {name} is not known"
        if self.failed:
            return (f"more than this device's measured {name} ({self.peak:,.0f} {unit}), even "
                    f"after measuring it again: that yardstick failed here (its kernel did not "
                    f"reach what this one did; a cache that holds the data can do that), so no "
                    f"share is given")
        return f"{self.fraction:.0%} of this device's {name} ({self.peak:,.0f} {unit} measured)"


def share(value: float, kind: str, peak: dict, ctx: cl.Context | None = None,
          queue: cl.CommandQueue | None = None) -> Share:
    """``value`` (GB/s or GFLOP/s) as a share of ``peak``'s figure of ``kind`` (``bandwidth``,
    ``copy`` or ``compute``). A value above the peak makes the peaks be measured again when a
    queue is given (the cache keeps the better figures); if it is still above, the share is
    ``failed`` and says so instead of printing a share above 100%."""
    key = KINDS[kind][0]
    top = peak.get(key) or 0.0
    if top and value > top and queue is not None and not peak.get("measured_again"):
        peak.update(peaks(ctx, queue, refresh=True, progress=False))
        peak["measured_again"] = True   # once per peak in a process: what beats it now, fails it
        top = peak[key]
    return Share(value, top, kind, failed=bool(top) and value > top)


def table(peak: dict) -> str:
    """The peaks as a learner reads them: per vector width, then the references beside the two
    yardsticks, a sentence where one is far from them, and when the peaks were measured."""
    from .references import disagreements

    lines = [f"{'vector width':<14}{'read GB/s':>11}{'copy GB/s':>11}{'GFLOP/s':>10}"
             f"{'1 chain':>10}"]
    for w in peak["gflop_per_s"]:     # the widths measured (a driver that crashes leaves one out)
        lines.append(f"{vector_name(w):<14}{peak['read_gb_per_s'][w]:>11.1f}"
                     f"{peak['copy_gb_per_s'][w]:>11.1f}{peak['gflop_per_s'][w]:>10.1f}"
                     f"{peak.get('chain_gflop_per_s', {}).get(w, float('nan')):>10.1f}")
    lines.append(f"\npeak bandwidth {peak['bandwidth_gb_per_s']:,.1f} GB/s, peak compute "
                 f"{peak['compute_gflop_per_s']:,.1f} GFLOP/s ({when(peak)})")
    if peak.get("busy"):
        lines.append(f"These may be low: {peak['busy']}. The course measures them again the next "
                     f"time they are used, and keeps the better figures.")
    refs = peak.get("references", [])
    if refs:
        lines.append("independent references on this machine:")
        for r in refs:
            value = (f"{r['gflop_per_s']:,.1f} GFLOP/s" if "gflop_per_s" in r else "")
            if "bandwidth_gb_per_s" in r:
                value += (", " if value else "") + f"{r['bandwidth_gb_per_s']:,.1f} GB/s"
            how = f" ({r['how']})" if r.get("how") and r["how"] != "datasheet" else ""
            lines.append(f"  {r['label']}: {value}{how}")
    else:
        lines.append("no independent reference is known for this device")
    lines += disagreements(peak)
    return "\n".join(lines)
