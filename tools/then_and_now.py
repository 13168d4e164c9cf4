"""Notebook 16's measurements on one device (``helpers.studies.then_and_now``), and on an NVIDIA GPU
two more that the sources made:

- ``power``: GFLOP/s per watt of SGEMM, the course's tuned ``sgemm_param`` and cuBLAS (through
  cupy), each run for ``--seconds`` while ``nvidia-smi`` samples the board's power draw. Du et al.
  (2011, 004 line 320) divided by the card's TDP and left "verifying this argument" to future work
  (line 352): both figures are kept, per watt drawn and per watt of the power limit.
- ``opencl_vs_cuda``: the same kernel source as OpenCL (pyopencl, profiling events) and as CUDA
  (``tools/cuda_twins.py``'s header, NVRTC through cupy, CUDA events), on the same GPU and data:
  Du et al.'s Figs. 4-5 compared MAGMA's CUDA kernels with their OpenCL translations.

    python tools/then_and_now.py DEVICE OUT.json [--power] [--cuda] [--seconds S]

Every result is checked against numpy before it is timed. The last lines printed are the
record, one line per study.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pyopencl as cl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT

sys.path.insert(0, str(ROOT / "tools"))

from helpers.device import match_devices
from helpers.studies import then_and_now
from helpers.timing import environment, time_kernel

QUERY = "power.draw,power.limit,clocks.sm,temperature.gpu"


class PowerSampler:
    """``nvidia-smi`` printing the board's power every ``period_ms`` into a list, in a thread."""

    def __init__(self, period_ms: int = 100):
        self.samples: list[tuple[float, float, float, float, float]] = []
        self.proc = subprocess.Popen(
            ["nvidia-smi", f"--query-gpu={QUERY}", "--format=csv,noheader,nounits",
             f"-lms={period_ms}"], stdout=subprocess.PIPE, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            try:
                vals = [float(x) for x in line.split(",")]
            except ValueError:
                continue
            self.samples.append((time.perf_counter(), *vals))

    def between(self, t0: float, t1: float) -> list[tuple]:
        return [s for s in self.samples if t0 <= s[0] <= t1]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


def _sustained(step, sync, seconds: float) -> tuple[float, int, float, float]:
    """Calls ``step`` until ``seconds`` have passed (syncing every 8 calls); the calls, the
    seconds and the start and end of the run."""
    step(), sync()
    calls, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(8):
            step()
        calls += 8
        sync()
    t1 = time.perf_counter()
    return t1 - t0, calls, t0, t1


def power(ctx: cl.Context, queue: cl.CommandQueue, n: int, seconds: float) -> dict:
    from helpers.studies import sgemm
    from helpers.studies.harness import cupy_on
    tuned = json.loads((ROOT / "results/reference/tune-nvidia-h100.json").read_text())
    config = sgemm.Config.from_json(tuned["best"])
    [prepared] = sgemm.ladder(ctx, queue, n, config=config, param_only=True)
    prepared.verify()   # against numpy before it is timed
    sampler = PowerSampler()
    time.sleep(3)
    idle_end = time.perf_counter()
    idle = sampler.between(idle_end - 2.5, idle_end)
    runs = {}
    elapsed, calls, t0, t1 = _sustained(prepared.launch, queue.finish, seconds)
    runs[f"sgemm_param ({config.label()}), OpenCL"] = (elapsed, calls, t0, t1)
    cupy = cupy_on(queue.device)
    if cupy is not None:
        rng = np.random.default_rng(1)
        a = cupy.asarray(rng.uniform(-1, 1, (n, n)).astype(np.float32))
        b = cupy.asarray(rng.uniform(-1, 1, (n, n)).astype(np.float32))
        c = a @ b
        want = cupy.asnumpy(a).astype(np.float64) @ cupy.asnumpy(b).astype(np.float64)
        assert np.allclose(cupy.asnumpy(c), want, rtol=1e-3, atol=1e-2), "cuBLAS disagrees with numpy"
        time.sleep(2)
        runs[f"cuBLAS SGEMM (cupy {cupy.__version__})"] = _sustained(
            lambda: a @ b, cupy.cuda.Device().synchronize, seconds)
    time.sleep(0.5)
    sampler.stop()
    rows = []
    for label, (elapsed, calls, t0, t1) in runs.items():
        # the samples of the steady part: the first second of a run left out (clocks and power rise)
        s = sampler.between(t0 + 1.0, t1)
        draw = float(np.median([x[1] for x in s]))
        limit = float(np.median([x[2] for x in s]))
        gflops = sgemm.flops(n, n, n) * calls / elapsed / 1e9
        rows.append({"label": label, "n": n, "calls": calls, "seconds": round(elapsed, 3),
                     "gflop_per_s": round(gflops, 1), "samples": len(s),
                     "power_draw_w_median": round(draw, 1),
                     "power_draw_w_range": [min(x[1] for x in s), max(x[1] for x in s)],
                     "power_limit_w": limit,
                     "sm_clock_mhz_median": float(np.median([x[3] for x in s])),
                     "temperature_c_max": max(x[4] for x in s),
                     "gflop_per_s_per_w_drawn": round(gflops / draw, 2),
                     "gflop_per_s_per_w_of_limit": round(gflops / limit, 2)})
    return {"idle_power_w_median": float(np.median([x[1] for x in idle])) if idle else None,
            "sampling": f"nvidia-smi --query-gpu={QUERY} -lms=100; the first second of each run "
                        "left out", "rows": rows}


def opencl_vs_cuda(ctx: cl.Context, queue: cl.CommandQueue, n: int = 4096) -> list[dict]:
    import cupy as cp
    from cuda_twins import twin_of

    from helpers.studies.harness import kernel, read_back, to_device
    twin = twin_of("kernels/studies/then_and_now.cl")
    module = cp.RawModule(code=twin.source)
    rng = np.random.default_rng(3)
    a_np = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b_np = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    want = a_np.astype(np.float64) @ b_np.astype(np.float64)
    rows = []
    for name in ("gemm_buffers", "gemm_buffers_tiled"):
        a, b = to_device(ctx, a_np), to_device(ctx, b_np)
        c = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 4 * n * n)
        knl = kernel(ctx, "then_and_now.cl", name)

        def launch(knl=knl, a=a, b=b, c=c):
            return knl(queue, (n, n), (16, 16), a, b, c, np.uint32(n))
        launch().wait()
        got = read_back(queue, c, n * n).reshape(n, n)
        assert np.allclose(got, want, rtol=1e-3, atol=1e-3), name
        ocl = time_kernel(launch, warmup=2, repeats=10)
        ca, cb = cp.asarray(a_np), cp.asarray(b_np)
        cc = cp.empty((n, n), cp.float32)
        fn = module.get_function(name)

        def cuda_launch(fn=fn, ca=ca, cb=cb, cc=cc):
            fn((n // 16, n // 16), (16, 16), (ca, cb, cc, np.uint32(n)))
        cuda_launch()
        cp.cuda.Device().synchronize()
        assert np.allclose(cc.get(), want, rtol=1e-3, atol=1e-3), f"{name} (CUDA)"
        samples = []
        for i in range(12):
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            cuda_launch()
            end.record()
            end.synchronize()
            if i >= 2:
                samples.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
        cuda_s = float(np.median(samples))
        flops = 2.0 * n ** 3
        rows.append({"kernel": name, "n": n, "opencl_ms": round(ocl.median * 1e3, 4),
                     "cuda_ms": round(cuda_s * 1e3, 4),
                     "opencl_gflop_per_s": round(flops / ocl.median / 1e9, 1),
                     "cuda_gflop_per_s": round(flops / cuda_s / 1e9, 1),
                     "cuda_registers": getattr(fn, "num_regs", None),
                     "cuda": f"cupy {cp.__version__}, NVRTC, CUDA runtime "
                             f"{cp.cuda.runtime.runtimeGetVersion()}"})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("device")
    ap.add_argument("out", type=Path)
    ap.add_argument("--power", action="store_true")
    ap.add_argument("--cuda", action="store_true")
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args()
    dev = match_devices(args.device)[0]
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    record = then_and_now.then_and_now(ctx, queue)
    if args.cuda:
        record["opencl_vs_cuda"] = opencl_vs_cuda(ctx, queue)
    if args.power:
        record["power"] = power(ctx, queue, 8192, args.seconds)
    record["environment"] = environment(dev)
    record["written_by"] = "python tools/then_and_now.py " + " ".join(sys.argv[1:])
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    for key, value in record.items():
        if key not in ("environment", "written_by"):
            print(key, json.dumps(value))
    return 0


if __name__ == "__main__":
    sys.exit(main())
