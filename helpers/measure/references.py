"""Independent references for the course's measured peaks: what the device's model says it can do
(a theoretical figure: a CPU's cores x FMA units x vector width x 2 x clock, a GPU's datasheet or
its compute units x lanes x 2 x clock) and what a library reaches on the same machine (numpy's
matmul and a threaded numpy copy on the host, whose memory a CPU device shares; cupy's matmul and
device-to-device copy on an NVIDIA GPU). A measured peak far from its references means the peak's
kernel failed to measure the device; :func:`disagreements` says so in a sentence.

What is known of processors is data (``helpers/data/processors.json``), not code.
"""

from __future__ import annotations

import json
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import numpy as np

from ..paths import DATA as _DATA
from ..wording import plural

DATA = _DATA / "processors.json"
CPUINFO = Path("/proc/cpuinfo")
MAX_FREQ = Path("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
FAR = 2.0   # a measured peak more than this factor away from a reference is called out


@cache
def processors() -> dict:
    """The table of known processors (see the file's ``about``)."""
    return json.loads(DATA.read_text())


# --------------------------------------------------------------------------------------------------
# Theoretical peaks.

def cpu_info(text: str | None = None, max_freq_khz: str | None = None) -> dict | None:
    """The host CPU as /proc/cpuinfo describes it (``text`` to read another): vendor, family, model,
    model name, flags, physical cores, logical CPUs and the clock in MHz (the highest the kernel
    reports: cpufreq's maximum, the model name's "@ 2.60GHz", or "cpu MHz"). None where there is no
    /proc/cpuinfo (macOS, Windows)."""
    if text is None:
        try:
            text = CPUINFO.read_text()
        except OSError:
            return None
        try:
            max_freq_khz = MAX_FREQ.read_text()
        except OSError:
            max_freq_khz = None
    procs = []
    for b in text.strip().split("\n\n"):
        fields = {}
        for line in b.splitlines():
            key, _, value = line.partition(":")
            fields[key.strip().lower()] = value.strip()
        if "processor" in fields:   # not the trailing Hardware/Revision block of an Arm board
            procs.append(fields)
    if not procs:
        return None
    first = procs[0]
    cores = {(p.get("physical id", "0"), p.get("core id", str(i))) for i, p in enumerate(procs)}
    name = first.get("model name", "")
    mhz = None
    if max_freq_khz and max_freq_khz.strip().isdigit():
        mhz = int(max_freq_khz.strip()) / 1000
    elif m := re.search(r"@\s*([\d.]+)\s*GHz", name):
        mhz = float(m.group(1)) * 1000
    elif first.get("cpu mhz"):
        mhz = float(first["cpu mhz"])

    def number(key: str) -> int | None:
        try:
            return int(first[key], 0)
        except (KeyError, ValueError):
            return None

    flags = set((first.get("flags") or first.get("features") or "").split())
    return {"vendor": first.get("vendor_id", ""), "family": number("cpu family"),
            "model": number("model"), "model_name": name, "flags": flags,
            "physical_cores": len(cores), "logical_cpus": len(procs), "mhz": mhz}


def cpu_rule(info: dict) -> dict | None:
    """The first rule of the table that describes this CPU."""
    for rule in processors()["cpus"]:
        if "vendor" in rule and rule["vendor"] != info["vendor"]:
            continue
        if "family" in rule and rule["family"] != info["family"]:
            continue
        if "models" in rule and not (info["model"] is not None
                                     and rule["models"][0] <= info["model"] <= rule["models"][1]):
            continue
        if "flag" in rule and rule["flag"] not in info["flags"]:
            continue
        if "name_has" in rule and rule["name_has"] not in info["model_name"]:
            continue
        return rule
    return None


def cpu_theoretical(info: dict | None, compute_units: int | None = None) -> dict | None:
    """The theoretical single-precision peak of a CPU described by ``info`` (:func:`cpu_info`),
    using at most ``compute_units`` logical CPUs (a device may be given fewer than the host has),
    with the arithmetic written out. None when the CPU or its clock is unknown."""
    if info is None or not info.get("mhz"):
        return None
    rule = cpu_rule(info)
    if rule is None:
        return None
    cores = info["physical_cores"]
    if compute_units and compute_units < info["logical_cpus"]:
        threads_per_core = max(1, info["logical_cpus"] // max(cores, 1))
        cores = max(1, -(-compute_units // threads_per_core))
    lanes = rule["fma_bits"] // 32
    ghz = info["mhz"] / 1000
    value = cores * rule["fma_units"] * lanes * 2 * ghz
    return {"kind": "theoretical", "label": "theoretical peak", "gflop_per_s": value,
            "how": f"{plural(cores, 'core')} x {plural(rule['fma_units'], 'FMA unit')} x "
                   f"{plural(lanes, 'float')} x 2 flops x "
                   f"{ghz:.2f} GHz, the clock the system reports (a turbo clock can be higher); "
                   f"{rule['name']}"}


def gpu_theoretical(facts: dict, compute_capability: str | None = None) -> list[dict]:
    """A GPU's theoretical figures: its datasheet's where the table knows the device, else, for an
    NVIDIA GPU whose compute capability is known, compute units x FP32 lanes x 2 x the clock."""
    found = []
    for g in processors()["gpus"]:
        if g["name_has"] in facts["device"]:
            found.append({"kind": "theoretical", "label": g["label"],
                          "gflop_per_s": g["fp32_gflop_per_s"],
                          "bandwidth_gb_per_s": g["bandwidth_gb_per_s"], "how": "datasheet"})
            break
    lanes_table = processors()["nvidia_fp32_lanes_per_sm"]
    if compute_capability and facts.get("max_clock_mhz"):
        lanes = lanes_table.get(compute_capability) or lanes_table.get(compute_capability.split(".")[0])
        if lanes:
            cus, ghz = facts["compute_units"], facts["max_clock_mhz"] / 1000
            found.append({"kind": "theoretical", "label": "theoretical peak",
                          "gflop_per_s": cus * lanes * 2 * ghz,
                          "how": f"{plural(cus, 'SM')} x {plural(lanes, 'FP32 lane')} x 2 flops "
                                 f"x {ghz:.2f} GHz "
                                 f"(compute capability {compute_capability})"})
    return found


# --------------------------------------------------------------------------------------------------
# Measured references: a library on the same machine.

def host_matmul(n: int = 2048, repeats: int = 3) -> dict:
    """numpy's float32 matmul (the host's BLAS, on every core), the best of ``repeats``."""
    rng = np.random.default_rng()
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    a @ b
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t)
    return {"kind": "measured", "label": f"numpy matmul on the host (n = {n})",
            "gflop_per_s": 2 * n ** 3 / best / 1e9}


def host_copy(nbytes: int = 256 << 20, repeats: int = 5, threads: int | None = None) -> dict:
    """A copy of ``nbytes`` by numpy on the host, split over ``threads`` threads (numpy releases
    the GIL while it copies), counting bytes read plus written as the course's copy kernel does."""
    threads = threads or os.cpu_count() or 1
    src = np.ones(nbytes // 4, np.float32)
    dst = np.empty_like(src)
    parts = np.array_split(np.arange(src.size), threads)
    bounds = [(p[0], p[-1] + 1) for p in parts if p.size]

    def copy(bound: tuple[int, int]) -> None:
        lo, hi = bound
        dst[lo:hi] = src[lo:hi]

    best = float("inf")
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(copy, bounds))
        for _ in range(repeats):
            t = time.perf_counter()
            list(pool.map(copy, bounds))
            best = min(best, time.perf_counter() - t)
    return {"kind": "measured", "label": f"numpy copy on the host ({plural(threads, 'thread')})",
            "bandwidth_gb_per_s": 2 * nbytes / best / 1e9}


def cupy_references(n: int = 8192, nbytes: int = 1 << 30, repeats: int = 10) -> list[dict]:
    """cuBLAS's SGEMM and a device-to-device copy through cupy, timed with CUDA events; empty
    where cupy is missing or finds no GPU."""
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception:
        return []

    def seconds(fn) -> float:
        fn()
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        best = float("inf")
        for _ in range(repeats):
            start.record()
            fn()
            end.record()
            end.synchronize()
            best = min(best, cupy.cuda.get_elapsed_time(start, end) / 1e3)
        return best

    a = cupy.random.random((n, n), dtype=cupy.float32)
    b = cupy.random.random((n, n), dtype=cupy.float32)
    mm = seconds(lambda: a @ b)
    src = cupy.ones(nbytes // 4, cupy.float32)
    dst = cupy.empty_like(src)
    cp = seconds(lambda: cupy.copyto(dst, src))
    version = cupy.__version__
    return [{"kind": "measured", "label": f"cuBLAS SGEMM through cupy {version} (n = {n})",
             "gflop_per_s": 2 * n ** 3 / mm / 1e9},
            {"kind": "measured", "label": f"device-to-device copy through cupy {version}",
             "bandwidth_gb_per_s": 2 * nbytes / cp / 1e9}]


def _compute_capability(dev) -> str | None:
    try:
        return f"{dev.compute_capability_major_nv}.{dev.compute_capability_minor_nv}"
    except Exception:
        return None


def references(dev, facts: dict, *, small: bool = False) -> list[dict]:
    """Every reference the course can find for ``dev`` on this machine: theoretical figures and
    libraries' measurements (host ones only where the device is the host's CPU)."""
    import pyopencl as cl

    found: list[dict] = []
    if dev.type & cl.device_type.CPU:
        theory = cpu_theoretical(cpu_info(), dev.max_compute_units)
        if theory:
            found.append(theory)
        found.append(host_matmul(1024 if small else 2048))
        found.append(host_copy((32 << 20) if small else (256 << 20)))
    else:
        found += gpu_theoretical(facts, _compute_capability(dev))
        if "NVIDIA" in dev.platform.name:
            found += cupy_references(2048 if small else 8192, (64 << 20) if small else (1 << 30))
    return found


def disagreements(peak: dict) -> list[str]:
    """A sentence for each reference the measured peak is more than :data:`FAR` times away from."""
    said = []
    for kind, key, unit in (("compute", "gflop_per_s", "GFLOP/s"),
                            ("bandwidth", "bandwidth_gb_per_s", "GB/s")):
        measured = peak.get("compute_gflop_per_s" if kind == "compute" else "bandwidth_gb_per_s")
        for ref in peak.get("references", []):
            value = ref.get(key)
            if not measured or not value:
                continue
            if ref["kind"] == "theoretical" and measured > 1.05 * value and "GHz" in ref.get("how", ""):
                ghz = float(ref["how"].split(" GHz")[0].rsplit(" ", 1)[-1])
                said.append(f"The measured {kind} peak ({measured:,.0f} {unit}) is above the "
                            f"{ref['label']} ({value:,.0f} {unit}), which uses the {ghz:.2f} GHz the "
                            f"system reports: the processor ran at about {ghz * measured / value:.1f} "
                            f"GHz (a turbo clock), and the measured peak is the better yardstick.")
                continue
            if 1 / FAR <= value / measured <= FAR:
                continue
            what = f"{ref['label']} ({value:,.0f} {unit}" + (f": {ref['how']})" if "how" in ref else ")")
            if value > measured:
                said.append(f"The measured {kind} peak ({measured:,.0f} {unit}) is {value / measured:.1f}x "
                            f"below the {what}, so shares of it flatter a kernel; other work on "
                            f"the machine, a lowered clock, or a driver whose compiler does not use this "
                            f"processor's widest vector units held it back. "
                            f"bench.peaks(ctx, queue, refresh=True) measures again.")
            else:
                said.append(f"The measured {kind} peak ({measured:,.0f} {unit}) is {measured / value:.1f}x "
                            f"above the {what}: that reference, not the peak, falls short here.")
    return said
