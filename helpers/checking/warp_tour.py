"""The warp model's tour (notebook 05, section 6): one tiny kernel for each thing the model counts
(``kernels/studies/warp_tour.cl``), run on Oclgrind with the model's plugin in a process apart
(the plugin is loaded by the environment Oclgrind starts in), and the counter each one shows.

    result = warp_tour.run()       # {"available": True, "rows": [...]} or the one sentence why not
    print(warp_tour.table(result))
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from ..kernels import KERNELS
from ..warp import build

FILE = KERNELS / "studies" / "warp_tour.cl"
ITEMS, GROUP = 4096, 1024
# (label, kernel, build options, the counter it shows, what that counter counts)
RUNS = [
    ("in[i]", "neighbours", "", "global_load_sectors_per_request", "sectors per load request"),
    ("in[2 * i]", "every_second", "", "global_load_sectors_per_request",
     "sectors per load request"),
    ("in[32 * i]", "every_32nd", "", "global_load_sectors_per_request",
     "sectors per load request"),
    ("tile[32][32], down a column", "down_a_column", "-DPAD=0", "local_load_wavefronts",
     "wavefronts per local read"),
    ("tile[32][33], down a column", "down_a_column", "-DPAD=1", "local_load_wavefronts",
     "wavefronts per local read"),
    ("if (i % 2 == 0) ... else ...", "odd_and_even", "", "divergent_share",
     "warp branches that diverged"),
    ("float h[8]; ... h[in[i] % 8]", "private_array", "", "private_accesses",
     "private-memory accesses"),
]


def _launch(out: str) -> int:
    """Run the tour's kernels on Oclgrind, one launch each (this process's environment loads the
    plugin); inputs are ones, since the model counts addresses and branches, not values."""
    import pyopencl as cl

    from ..device import oclgrind_device
    dev = oclgrind_device()
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx)
    source = FILE.read_text()
    a = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, ITEMS * 32 * 4)
    b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, ITEMS * 4)
    cl.enqueue_fill_buffer(queue, a, np.float32(1), 0, ITEMS * 32 * 4)
    for _, kernel, options, _, _ in RUNS:
        prg = cl.Program(ctx, source).build(options=options + " -DPAD=0" * ("PAD" not in options))
        cl.Kernel(prg, kernel)(queue, (ITEMS,), (GROUP,), a, b)
        queue.finish()
    return 0


def _value(key: str, launch: dict) -> float | str:
    """The counter ``key`` of one launch (the local loads' wavefronts alone: the tile's rows are
    written without conflicts)."""
    from ..checking.counters import summary
    facts = summary([launch])
    if key == "local_load_wavefronts":
        load = launch["counts"].get("local load", {})
        return round(load.get("units", 0) / max(load.get("requests", 1), 1), 2)
    if key == "divergent_share":
        return f"{facts['divergent_branches']} of {facts['branches']}"
    return facts[key]


def run(warp_size: int = 32, timeout: float = 240) -> dict:
    """Each kernel of the tour with the counter it shows (``rows``: ``access``, ``kernel``,
    ``what``, ``value``), for warps of ``warp_size``; ``available`` False with ``why`` where
    Oclgrind or the plugin is missing."""
    from ..device import oclgrind_device
    built = build.plugin()
    if built.path is None:
        return {"available": False, "why": built.why}
    if oclgrind_device() is None:
        return {"available": False, "why": "Oclgrind, which runs the warp model, is not installed"}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "warp.jsonl"
        env = {**os.environ, "OCLGRIND_PLUGINS": str(built.path), "COURSE_WARP_OUT": str(out),
               "COURSE_WARP_SIZE": str(warp_size)}
        done = subprocess.run([sys.executable, "-m", "helpers.checking.warp_tour", str(out)],
                              env=env, capture_output=True, text=True, timeout=timeout)
        text = out.read_text() if out.is_file() else ""
    launches = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    if done.returncode != 0 or len(launches) != len(RUNS):
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"available": False, "why": f"the tour's kernels did not all run on Oclgrind "
                                           f"({last})"}
    rows = []
    for (access, kernel, _, key, what), launch in zip(RUNS, launches, strict=True):
        rows.append({"access": access, "kernel": kernel, "what": what,
                     "value": _value(key, launch)})
    return {"available": True, "why": None, "warp_size": warp_size, "rows": rows}


def table(result: dict) -> str:
    """The tour as lines: the access, the counter and its value."""
    if not result["available"]:
        return f"No warp model here: {result['why']}."
    lines = [f"warps of {result['warp_size']} lanes (a model on Oclgrind, not a measurement)"]
    lines += [f"  {r['access']:30} {r['what']:28} {r['value']}" for r in result["rows"]]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(_launch(sys.argv[1]))
