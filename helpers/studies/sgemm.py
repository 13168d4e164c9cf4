"""SGEMM, notebook 14: the ladder of the course's matrix-product kernels (kernels/studies/sgemm.cl
and the exercise sgemm_tiled), the parameterized kernel ``sgemm_param`` with the space of its
build-time parameters, and the libraries it is measured against (numpy's matmul on the host, cuBLAS
through cupy on an NVIDIA GPU, CLBlast where its library loads).

Tuning the parameterized kernel is :mod:`helpers.studies.tuning`; this module reads the best configuration
it saved for the device (:func:`tuned_config`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import json
import os
import time
from dataclasses import asdict, dataclass

import numpy as np
import pyopencl as cl

from .. import cache, settings
from ..device import device_key
from ..exercises import rounded_up
from ..exercises.passed import kernel_to_measure
from ..paths import RESULTS
from ..timing import gflop_per_s, small_sizes
from .harness import (
    Prepared,
    cupy_on,
    cupy_samples,
    device_output,
    kernel,
    launcher,
    measure,
    run_and_compare,
    study_result,
    to_device,
)

FILE = "sgemm.cl"
TUNED = "tuned-sgemm"   # cache document: device key -> the best configuration a tuning run found


# --------------------------------------------------------------------------------------------------
# The parameterized kernel and its space (the counterpart of Du et al.'s Table 4).

@dataclass(frozen=True)
class Config:
    """The build-time parameters of ``sgemm_param`` (see its comment in sgemm.cl)."""

    TM: int = 64
    TN: int = 64
    TK: int = 16
    TX: int = 16
    TY: int = 16
    VW: int = 1
    VR: int = 1
    PF: int = 0
    LOCAL: int = 1
    DB: int = 0
    WX: int = 0
    KU: int = 0

    def options(self) -> tuple[str, ...]:
        return tuple(f"-D{k}={v}" for k, v in asdict(self).items())

    def local_size(self) -> tuple[int, int]:
        return (self.TX, self.TY)

    def global_size(self, m: int, n: int) -> tuple[int, int]:
        return (rounded_up(n, self.TN) // (self.TN // self.TX),
                rounded_up(m, self.TM) // (self.TM // self.TY))

    def per_work_item(self) -> int:
        return (self.TM // self.TY) * (self.TN // self.TX)

    def local_bytes(self) -> int:
        return 4 * self.TK * (self.TM + self.VR + self.TN) * (1 + self.DB) if self.LOCAL else 0

    def label(self) -> str:
        where = "local tiles" if self.LOCAL else "no local memory"
        runs = f" in runs of {self.VR}" if self.VR > 1 else ""
        ahead = ", prefetched" if self.PF else ""
        two = ", double-buffered" if self.DB else ""
        warps = f", warps of {self.WX}x{32 // self.WX}" if self.WX else ""
        warps += ", k-loop unrolled" if self.KU else ""
        return (f"{self.TM}x{self.TN} tile, {self.TX}x{self.TY} work-items "
                f"({self.TM // self.TY}x{self.TN // self.TX} each{runs}), TK={self.TK}, "
                f"float{self.VW if self.VW > 1 else ''}{ahead}{two}{warps}, {where}")

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> Config:
        return cls(**{k: int(d[k]) for k in asdict(cls()) if k in d})


MAX_RESULTS = 64   # results per work-item the space allows by default (registers)

SPACE = {
    "TM": [16, 32, 64, 128],
    "TN": [16, 32, 64, 128],
    "TK": [8, 16, 32],
    "TX": [4, 8, 16, 32],
    "TY": [4, 8, 16, 32],
    "VW": [1, 2, 4],
    "VR": [1, 2, 4],
    "PF": [0, 1],
    "LOCAL": [0, 1],
    "DB": [0, 1],
    "WX": [0, 4, 8, 16],
    "KU": [0, 1],
}


def restrictions(max_group: int, local_memory: int, max_results: int = MAX_RESULTS) -> list[str]:
    """What makes a configuration worth building on a device with these limits, in kernel_tuner's
    own form (expressions over the parameters): the shapes divide, the work-group fits and has at
    least 16 work-items, the tiles fit local memory, at most ``max_results`` results per work-item
    (64 by default: registers), prefetching only where every work-item holds the same share of a
    step, double buffering only with prefetching, warp patches only where they tile the work-group,
    and without local memory only one value of the parameters that then mean nothing."""
    return [
        "TM % TY == 0", "TN % TX == 0", "TK % VW == 0", "TN % VW == 0",
        "(TM // TY) % VR == 0", "(TN // TX) % VR == 0",
        f"16 <= TX * TY <= {max_group}",
        f"(TM // TY) * (TN // TX) <= {max_results}",
        "PF == 0 or ((TM * TK // VW) % (TX * TY) == 0 and (TK * TN // VW) % (TX * TY) == 0)",
        f"LOCAL == 1 or (TK == {SPACE['TK'][0]} and VW == 1 and PF == 0 and DB == 0 and KU == 0)",
        f"LOCAL == 0 or 4 * TK * (TM + VR + TN) * (1 + DB) <= {local_memory}",
        "DB == 0 or PF == 1",
        "WX == 0 or ((TX * TY) % 32 == 0 and TX % WX == 0 and TY % (32 // WX) == 0)",
    ]


def _rules(max_group: int, local_memory: int, max_results: int = MAX_RESULTS) -> list:
    """:func:`restrictions`, compiled once (eval of the text for each of the 442,368
    configurations of :data:`SPACE` took notebook 14's cell 100 s on 2 cores)."""
    return [compile(rule, "<restriction>", "eval")
            for rule in restrictions(max_group, local_memory, max_results)]


def valid(c: Config, max_group: int, local_memory: int, max_results: int = MAX_RESULTS,
          rules: list | None = None) -> bool:
    """Whether ``c`` meets :func:`restrictions` (the same expressions, evaluated here)."""
    values = c.to_json()
    return all(eval(rule, {}, values)
               for rule in rules or _rules(max_group, local_memory, max_results))


def space(dev: cl.Device, spec: dict[str, list[int]] | None = None,
          max_results: int = MAX_RESULTS) -> list[Config]:
    """Every valid configuration of ``spec`` (the whole :data:`SPACE` by default) on ``dev``."""
    spec = spec or SPACE
    keys = list(spec)
    rules = _rules(dev.max_work_group_size, dev.local_mem_size, max_results)
    found = []
    for values in itertools.product(*(spec[k] for k in keys)):
        named = dict(zip(keys, values, strict=True))
        if all(eval(rule, {}, named) for rule in rules):
            found.append(Config(**named))
    return found


DEFAULT = Config()  # what runs where nothing better is known for the device


def tuned_config(dev: cl.Device) -> tuple[Config, dict] | None:
    """The best configuration the last tuning run saved for ``dev`` (and that run's record), or
    None when it was never tuned here."""
    record = cache.read(TUNED).get(device_key(dev))
    if not record:
        return None
    return Config.from_json(record["best"]), record


def shipped() -> list[tuple[str, dict]]:
    """The tuning records the course ships (``results/reference/tune-*.json``), as CLBlast ships its
    database: (file name, record) pairs."""
    found = []
    for path in sorted(RESULTS.glob("tune-*.json")):
        try:
            found.append((f"results/reference/{path.name}", json.loads(path.read_text())))
        except (OSError, ValueError):
            continue
    return found


@dataclass(frozen=True)
class Choice:
    """The configuration of ``sgemm_param`` used on a device, and where it comes from."""

    config: Config
    how: str        # "tuned here", "tuned on ...", "default"
    sentence: str   # what a learner reads about it


def choose_config(dev: cl.Device, records: list[tuple[str, dict]] | None = None) -> Choice:
    """The configuration to run on ``dev``: the learner's own tuning, else a shipped record of the
    same device (the same driver first, then another driver of it), else the default, each with a
    sentence saying which."""
    found = tuned_config(dev)
    if found:
        return Choice(found[0], "tuned here",
                      f"tuned on this device by python -m helpers tune sgemm (n = {found[1]['n']})")
    name, driver = dev.name.strip(), dev.driver_version.strip()
    platform = dev.platform.name.strip()
    same_name = []
    for file, record in shipped() if records is None else records:
        facts = record.get("environment", {}).get("device", {})
        config = Config.from_json(record["best"])
        if facts.get("device") == name and facts.get("platform", platform) == platform \
                and valid(config, dev.max_work_group_size, dev.local_mem_size):
            rank = (facts.get("driver_version") == driver,
                    facts.get("compute_units") == dev.max_compute_units)
            same_name.append((rank, file, record, config))
    if same_name:
        (same_driver, same_units), file, record, config = max(same_name, key=lambda t: t[0])
        facts = record["environment"]["device"]
        other = "" if same_driver else (f"; with driver {facts.get('driver_version')}, this device "
                                        f"runs {driver}")
        if not same_units:   # a VM names its CPU alike whatever its share of the cores
            other += (f"; on {facts.get('compute_units')} compute units, this device has "
                      f"{dev.max_compute_units}")
        return Choice(config, f"tuned on an {name}",
                      f"tuned on an {name} at n = {record['n']}, {file}{other}; python -m helpers "
                      f"tune sgemm tunes it here")
    return Choice(DEFAULT, "default",
                  f"the default configuration: the course ships no tuning for {name}; python -m "
                  f"helpers tune sgemm finds a better one")


def save_tuned(dev: cl.Device, record: dict) -> None:
    cache.write(TUNED, {**cache.read(TUNED), device_key(dev): record})


# --------------------------------------------------------------------------------------------------
# The ladder.

def flops(m: int, n: int, k: int) -> int:
    return 2 * m * n * k


def default_size() -> int:
    return 256 if small_sizes() else 1024


def _matrices(m: int, n: int, k: int, seed: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random a, b and numpy's a . b (in float64 up to 2048, beyond in the host's float32 BLAS,
    whose error stays far inside the comparison's tolerance)."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    big = max(m, n, k) > 2048
    return a, b, (a @ b if big else a.astype(np.float64) @ b.astype(np.float64))


def ladder(ctx: cl.Context, queue: cl.CommandQueue, size: int | tuple[int, int, int] | None = None,
           config: Config | None = None, tiled_local: int = 16, seed: int | None = None,
           configs: dict[str, Config] | None = None,
           param_only: bool = False) -> list[Prepared]:
    """The ladder on an m x k by k x n product (``size``: n for square, or (m, n, k)): each rung
    checked against numpy and ready to time. The last rungs are ``sgemm_param`` with ``config``
    (the tuned one of this device when None, else the default) and any further ``configs``
    (label -> configuration), e.g. the configuration another device found best. With
    ``param_only`` the rungs below ``sgemm_param`` are left out (not even built)."""
    if size is None:
        size = default_size()
    m, n, k = (size, size, size) if isinstance(size, int) else size
    a_np, b_np, want = _matrices(m, n, k, seed)
    a, b, c = to_device(ctx, a_np), to_device(ctx, b_np), device_output(ctx, 4 * m * n)
    dims = (np.uint32(m), np.uint32(n), np.uint32(k))
    nbytes = 4 * (m * k + k * n + m * n)
    params = {"m": m, "n": n, "k": k}
    prepared = []

    def add(label: str, name: str, file_or_path, options: tuple[str, ...], global_size,
            local_size, *extra, more: dict | None = None) -> None:
        knl = kernel(ctx, file_or_path, name, options)
        launch = launcher(queue, knl, global_size, local_size, a, b, c, *dims, *extra)
        prepared.append(Prepared(label, launch,
                                 run_and_compare(queue, launch, c, m * n, want, label,
                                                  rtol=1e-4, atol=1e-4 * max(k, 1) ** 0.5),
                                 bytes=nbytes, flops=flops(m, n, k),
                                 params={**params, **(more or {})}, kernel=name))

    if not param_only:
        local = 16 if queue.device.max_work_group_size >= 256 else 8
        add("one work-item per element", "sgemm_naive", FILE, (),
            (rounded_up(n, local), rounded_up(m, local)), (local, local))
        t = tiled_local if queue.device.max_work_group_size >= tiled_local ** 2 else 8
        add(f"tiles in local memory ({t}x{t}, the exercise)", "sgemm_tiled",
            kernel_to_measure("sgemm_tiled"), (), (rounded_up(n, t), rounded_up(m, t)), (t, t),
            cl.LocalMemory(4 * t * t), cl.LocalMemory(4 * t * t), more={"tile": t})
        add("8 rows per work-item (32x32 tiles)", "sgemm_rows", FILE, (),
            (rounded_up(n, 32), rounded_up(m, 32) // 8), (32, 4))
        add("float4 loads, 8x4 per work-item (64x64 tiles)", "sgemm_vector", FILE, (),
            (rounded_up(n, 64) // 4, rounded_up(m, 64) // 8), (16, 8))
    if config is None:
        choice = choose_config(queue.device)
        config, how = choice.config, choice.how
    else:
        how = "given"
    chosen = {f"sgemm_param, {how}: {config.label()}": config, **(configs or {})}
    for label, cfg in chosen.items():
        add(label, "sgemm_param", FILE, cfg.options(), cfg.global_size(m, n), cfg.local_size(),
            more={"config": cfg.to_json()})
    return prepared


# --------------------------------------------------------------------------------------------------
# The libraries beside it.

def numpy_matmul(n: int, repeats: int = 5, seed: int | None = None) -> dict:
    """numpy's matmul (the host's BLAS) on an n x n float32 product, timed on the host."""
    a, b, _ = _matrices(n, n, n, seed)
    a @ b
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        samples.append(time.perf_counter() - start)
    s = float(np.median(samples))
    blas = _blas_name()
    return {"label": f"numpy matmul ({blas}, host)", "kernel": "numpy", "seconds": s,
            "min_seconds": float(min(samples)),
            "max_seconds": float(max(samples)), "repeats": repeats, "flops": flops(n, n, n),
            "gflop_per_s": gflop_per_s(flops(n, n, n), s), "m": n, "n": n, "k": n,
            "correct": True, "threads": os.cpu_count()}


def _blas_name() -> str:
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return f"{blas['name']} {blas.get('version', '')}".strip()
    except Exception:
        return "its BLAS"


def cublas_sgemm(queue: cl.CommandQueue, n: int, repeats: int = 10,
                 seed: int | None = None) -> dict | None:
    """cuBLAS SGEMM through cupy (``a @ b`` on float32), timed with CUDA events; None without cupy
    or an NVIDIA device."""
    cupy = cupy_on(queue.device)
    if cupy is None:
        return None
    rng = np.random.default_rng(seed)
    a = cupy.asarray(rng.uniform(-1, 1, (n, n)).astype(np.float32))
    b = cupy.asarray(rng.uniform(-1, 1, (n, n)).astype(np.float32))
    samples = cupy_samples(cupy, lambda: a @ b, repeats)
    s = float(np.median(samples))
    return {"label": f"cuBLAS SGEMM (cupy {cupy.__version__})", "kernel": "cublas", "seconds": s,
            "min_seconds": float(min(samples)),
            "max_seconds": float(max(samples)), "repeats": repeats, "flops": flops(n, n, n),
            "gflop_per_s": gflop_per_s(flops(n, n, n), s), "m": n, "n": n, "k": n,
            "correct": True}


CLBLAST_ROW_MAJOR, CLBLAST_NO_TRANSPOSE = 101, 111


def _clblast():
    """The CLBlast library through ctypes, or None where it does not load."""
    for name in ("libclblast.so.1", ctypes.util.find_library("clblast")):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        fn = lib.CLBlastSgemm
        fn.restype = ctypes.c_int
        fn.argtypes = ([ctypes.c_int] * 3 + [ctypes.c_size_t] * 3 + [ctypes.c_float]
                       + [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t] * 2
                       + [ctypes.c_float, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t]
                       + [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)])
        return lib
    return None


def clblast_sgemm(ctx: cl.Context, queue: cl.CommandQueue, n: int, repeats: int = 10,
                  seed: int | None = None) -> dict | None:
    """CLBlast's SGEMM on the same OpenCL queue, through its C API; None where the library does not
    load. Its result is checked against numpy like the course's kernels."""
    lib = _clblast()
    if lib is None:
        return None
    a_np, b_np, want = _matrices(n, n, n, seed)
    a, b, c = to_device(ctx, a_np), to_device(ctx, b_np), device_output(ctx, 4 * n * n)
    q = ctypes.c_void_p(queue.int_ptr)

    def call() -> cl.Event:
        event = ctypes.c_void_p()
        status = lib.CLBlastSgemm(CLBLAST_ROW_MAJOR, CLBLAST_NO_TRANSPOSE, CLBLAST_NO_TRANSPOSE,
                                  n, n, n, 1.0, a.int_ptr, 0, n, b.int_ptr, 0, n, 0.0, c.int_ptr,
                                  0, n, ctypes.byref(q), ctypes.byref(event))
        if status != 0:
            raise RuntimeError(f"CLBlastSgemm returned {status}")
        return cl.Event.from_int_ptr(event.value, retain=False)

    for _ in range(2):   # its first call per size compiles its kernels
        call().wait()
    got = np.empty(n * n, np.float32)
    cl.enqueue_copy(queue, got, c)
    correct = bool(np.allclose(got, want.ravel(), rtol=1e-4, atol=1e-4 * n ** 0.5))
    # timed on the host around the whole call: for large sizes CLBlast runs several kernels (pads,
    # copies, then its GEMM) and the event it returns is only the last one's
    samples = []
    for _ in range(repeats):
        queue.finish()
        start = time.perf_counter()
        call()
        queue.finish()
        samples.append(time.perf_counter() - start)
    s = float(np.median(samples))
    version = (settings.text("COURSE_CLBLAST_VERSION") or os.path.basename(lib._name))
    return {"label": f"CLBlast SGEMM ({version}, timed on the host)", "kernel": "clblast",
            "seconds": s, "min_seconds": float(min(samples)),
            "max_seconds": float(max(samples)), "repeats": repeats,
            "flops": flops(n, n, n), "gflop_per_s": gflop_per_s(flops(n, n, n), s),
            "m": n, "n": n, "k": n, "correct": correct}


def libraries(ctx: cl.Context, queue: cl.CommandQueue, n: int) -> list[dict]:
    """The rows of whichever libraries run here: the device's BLAS where it has one we can reach
    (cuBLAS, CLBlast), and numpy's matmul when the device is the host's CPU."""
    rows = [r for r in (cublas_sgemm(queue, n), clblast_sgemm(ctx, queue, n)) if r is not None]
    if queue.device.type & cl.device_type.CPU:
        rows.append(numpy_matmul(n))
    return rows


def sizes(dev: cl.Device) -> list[int]:
    """The sizes the bench measures on ``dev``: a CPU stops at 1024 (8192 would take minutes a
    launch), a small one under the small switch."""
    if small_sizes():
        return [256]
    return [512, 1024] if dev.type & cl.device_type.CPU else [1024, 4096, 8192]


def sgemm_experiment(ctx: cl.Context, queue: cl.CommandQueue) -> dict:
    """``python -m helpers bench``: the ladder at 1024, the tuned kernel and the libraries at every
    size of :func:`sizes` (the naive rungs only where they finish in reasonable time)."""
    left_out: list[dict] = []
    rows = []
    found = tuned_config(queue.device)
    choice = choose_config(queue.device)
    for n in sizes(queue.device):
        # the tuned configuration, or the default; above 2048 only it (the rungs below tell
        # their story at 1024 already)
        items = ladder(ctx, queue, n, param_only=n > 2048)
        for row in measure(items, queue, repeats=5, left_out=left_out):
            rows.append(row)
        rows += libraries(ctx, queue, n)
    return study_result("sgemm", rows, queue, left_out=left_out,
                   tuned=({k: v for k, v in found[1].items() if k != "tried"} if found else None),
                   config=choice.config.to_json(), config_source=choice.sentence)
