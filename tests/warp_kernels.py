"""The warp model's test kernels (tests/warp/*.cl) run on Oclgrind, one launch each, in the order
of RUNS: ``python -m tests.warp_kernels`` in a process whose environment loads the plugin
(``OCLGRIND_PLUGINS``, ``COURSE_WARP_OUT``; see tests/test_warp.py). Inputs are ones: the model
counts addresses and branches, not values."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent / "warp"
N = 4096

# (label, file, kernel, global size, local size, bytes of each buffer, build options, scalars)
RUNS = [
    ("copy", "copy.cl", "copy", (N,), (256,), N * 4, "", ()),
    ("strided", "strided.cl", "strided", (N,), (256,), N * 4 * 32, "", ()),
    ("copy4", "copy4.cl", "copy4", (N,), (256,), N * 16, "", ()),
    ("tile32", "tile.cl", "tile", (64, 64), (32, 32), 64 * 64 * 4, "-DTILE=32 -DPAD=0", ()),
    ("tile32pad", "tile.cl", "tile", (64, 64), (32, 32), 64 * 64 * 4, "-DTILE=32 -DPAD=1", ()),
    ("tile16", "tile.cl", "tile", (64, 64), (16, 16), 64 * 64 * 4, "-DTILE=16 -DPAD=0", ()),
    ("tile16pad", "tile.cl", "tile", (64, 64), (16, 16), 64 * 64 * 4, "-DTILE=16 -DPAD=1", ()),
    # no spaces or quotes in a -D: Oclgrind 21.10 crashes building with "-DX='(a % 2)'"
    ("parity", "branch.cl", "branch", (N,), (256,), N * 4, "-DCONDITION=(l%2)==0", ()),
    ("by_warp", "branch.cl", "branch", (N,), (256,), N * 4, "-DCONDITION=(l/32)%2==0", ()),
    ("ring", "ring.cl", "ring", (1024,), (256,), 1024 * 4, "", (np.int32(20),)),
    ("scalars", "scalars.cl", "scalars", (1024,), (256,), 1024 * 4, "", (np.int32(20),)),
]


def main() -> int:
    import pyopencl as cl

    from helpers.device import oclgrind_device
    dev = oclgrind_device()
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx)
    for _, file, name, gsize, lsize, nbytes, options, scalars in RUNS:
        prg = cl.Program(ctx, (HERE / file).read_text()).build(options=options)
        a = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, nbytes)
        b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, nbytes)
        cl.enqueue_fill_buffer(queue, a, np.float32(1), 0, nbytes)
        cl.Kernel(prg, name)(queue, gsize, lsize, a, b, *scalars)
        queue.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
