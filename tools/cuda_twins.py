"""CUDA twins of the course's OpenCL kernels, profiled by Nsight Compute on the reference GPU: the
truth the warp model (docs/warp-model.md, issue 44 point 6) is checked against. Nsight Compute does
not profile OpenCL kernels ("No kernels were profiled"); it profiles the same source compiled as
CUDA through ``cupy.RawModule``. Each twin is the course's own ``.cl`` file, unchanged but for:

- a header of macros and inline functions mapping OpenCL C to CUDA (``HEADER``): ``__kernel`` to
  ``extern "C" __global__``, ``__global`` to nothing, ``__local`` to ``__shared__`` (arrays declared
  in a kernel), ``__constant`` to ``__constant__`` (file scope), ``get_global_id`` and its family
  (size_t, as in OpenCL), ``barrier`` to ``__syncthreads()``, the ``uint`` typedefs, ``mad``,
  scalar ``select``;
- a small source rewriter (``rewrite``) for the two kinds of kernel parameter CUDA has no word for:
  a ``__local T *name`` parameter becomes dynamic shared memory (``extern __shared__ T name[];`` at
  the top of the body; its size is the launch's ``shared_mem``, as ``cl.LocalMemory`` gave it; one
  such parameter a kernel), and a ``__constant T *name`` parameter becomes a file-scope
  ``__constant__ T __cl_const_KERNEL_name[1024]`` filled before the launch, read through a
  ``const T *name`` pointer to it (NVIDIA's OpenCL also reads ``__constant`` arguments through the
  constant cache; the warp model, on Oclgrind, counts them as global loads: docs/warp-model.md).

Comments are blanked (line numbers kept) before the rewrite. No twin is written by hand: every kernel
below compiles through the header and the rewriter (a ``(float4)(...)`` constructor or a vector
operator would not: CUDA's ``float4`` is a plain struct; ``tests/warp/copy4.cl`` only assigns them).

Every launch is checked against numpy on the same inputs before its counters count (a twin that
computes wrong numbers is no truth), and each kernel is launched exactly once, so that Nsight
Compute's k-th profiled kernel is the k-th launch (cupy launches no kernel of its own here:
inputs go up and results come back as copies).

    python tools/cuda_twins.py sources DIR              # write every twin's CUDA source (no GPU)
    python tools/cuda_twins.py launch --record R.json   # run and check every twin once (GPU)
    python tools/cuda_twins.py measure --out OUT.json   # both runs, the second under ncu; JSON,
                                                        # then a short table (tools/h100_warp_truth.sh)
    python tools/cuda_twins.py assemble WORK --out OUT.json   # the JSON again from its files

``--only REGEX`` keeps the runs whose label matches.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT

HEADER = r"""// ---- OpenCL C to CUDA (tools/cuda_twins.py) ----
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
#define __kernel extern "C" __global__
#define __global
#define __local __shared__
#define __constant __constant__
#define __private
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
#define barrier(flags) __syncthreads()
#define mad(a, b, c) ((a) * (b) + (c))
#define native_sin __sinf
#define native_cos __cosf
#define native_exp __expf
// OpenCL's scalar select(a, b, c): c ? b : a (a value, not a jump)
template <typename T, typename C>
__device__ __forceinline__ T select(T a, T b, C c) { return c ? b : a; }
#define __CL_DIM(v, d) ((d) == 0 ? (v).x : (d) == 1 ? (v).y : (v).z)
__device__ __forceinline__ size_t get_local_id(uint d) { return __CL_DIM(threadIdx, d); }
__device__ __forceinline__ size_t get_group_id(uint d) { return __CL_DIM(blockIdx, d); }
__device__ __forceinline__ size_t get_local_size(uint d) { return __CL_DIM(blockDim, d); }
__device__ __forceinline__ size_t get_num_groups(uint d) { return __CL_DIM(gridDim, d); }
__device__ __forceinline__ size_t get_global_id(uint d)
{ return get_group_id(d) * get_local_size(d) + get_local_id(d); }
__device__ __forceinline__ size_t get_global_size(uint d)
{ return get_num_groups(d) * get_local_size(d); }
// ---- the kernel's own source ----
"""
CONSTANT_CAPACITY = 1024            # elements of each __constant parameter's file-scope array
SCALARS = {"uint": "uint32", "unsigned int": "uint32", "int": "int32", "float": "float32",
           "size_t": "uint64", "ulong": "uint64", "long": "int64"}
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_KERNEL = re.compile(r"\b__kernel\s+void\s+(\w+)\s*\(([^)]*)\)\s*\{")
_ADDRESS = {"__global", "global", "__local", "local", "__constant", "constant", "__private"}


@dataclass
class Param:
    name: str
    kind: str        # "global", "local", "constant" (pointers) or "scalar"
    base: str        # the element or scalar type, qualifiers off: "float", "uint", "triple"


@dataclass
class Twin:
    source: str                              # CUDA source, header included
    kernels: dict[str, list[Param]]          # each kernel's OpenCL parameters, in order


def _param(text: str) -> Param:
    m = re.match(r"(.*?)\b(\w+)\s*$", text.strip(), re.S)
    if not m:
        raise ValueError(f"cannot read the parameter {text!r}")
    words = m.group(1).replace("*", " * ").split()
    pointer = "*" in words
    base = " ".join(w for w in words if w not in _ADDRESS | {"*", "const", "restrict",
                                                               "__restrict"})
    if pointer and words[0] in ("__local", "local"):
        kind = "local"
    elif pointer and words[0] in ("__constant", "constant"):
        kind = "constant"
    elif pointer:
        kind = "global"
    else:
        kind = "scalar"
    return Param(m.group(2), kind, base)


def rewrite(cl_source: str) -> Twin:
    """The CUDA twin of an OpenCL C source: comments blanked, ``__local`` and ``__constant``
    pointer parameters rewritten (see the module's text), the header prepended."""
    text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), cl_source)
    kernels: dict[str, list[Param]] = {}
    out, at = [], 0
    for m in _KERNEL.finditer(text):
        name = m.group(1)
        params = [_param(p) for p in m.group(2).split(",") if p.strip()]
        kernels[name] = params
        locals_ = [p for p in params if p.kind == "local"]
        if len(locals_) > 1:
            raise NotImplementedError(f"{name}: more than one __local parameter (write its twin "
                                      "by hand)")
        kept = [p.strip() for p, q in zip([x for x in m.group(2).split(",") if x.strip()], params,
                                             strict=True)
                if q.kind in ("global", "scalar")]
        before = "".join(f"__constant__ {p.base} __cl_const_{name}_{p.name}[{CONSTANT_CAPACITY}];\n"
                         for p in params if p.kind == "constant")
        prefix = "".join(f" extern __shared__ {p.base} {p.name}[];" for p in locals_) + "".join(
            f" const {p.base} *{p.name} = __cl_const_{name}_{p.name};"
            for p in params if p.kind == "constant")
        # the new text keeps the kernel on its line: the declarations go in front of it on the
        # same line, the body's additions after its brace
        signature = f"__kernel void {name}(" + ", ".join(kept) + ") {" + prefix
        signature += "\n" * m.group(0).count("\n")
        out.append(text[at:m.start()])
        out.append(before.replace("\n", " ") + signature)
        at = m.end()
    out.append(text[at:])
    return Twin(HEADER + "".join(out), kernels)


# ------------------------------------------------------------------------------------------------
# What runs: each twin, its launch and its numpy reference.

@dataclass
class Local:
    """A ``__local`` pointer argument: its size in bytes (as ``cl.LocalMemory``)."""
    nbytes: int


@dataclass
class Const:
    """A ``__constant`` pointer argument: the host array copied into the twin's constant array."""
    array: object


@dataclass
class Run:
    label: str
    group: str               # "exercise" (a solution), "given" (its starting kernel), "study",
    file: str                # "synthetic"; the .cl file, from the repository's root
    kernel: str
    global_size: tuple
    local_size: tuple
    params: dict             # the sizes and scalars, for the record
    make: Callable           # rng -> (args in the kernel's order, {arg index: (want, rtol, atol)})
    defines: tuple = ()
    note: str = ""
    extra: dict = field(default_factory=dict)


def _rounded(n: int, m: int) -> int:
    return -(-n // m) * m


def _f32(rng, *shape, lo=-1.0, hi=1.0):
    import numpy as np
    return rng.uniform(lo, hi, shape).astype(np.float32)


def copy_case(n):
    def make(rng):
        import numpy as np
        src = _f32(rng, n)
        return [src, np.zeros(n, np.float32), n], {1: (src, 0, 0)}
    return make


def saxpy_case(n, a):
    def make(rng):
        x, y = _f32(rng, n), _f32(rng, n)
        return [x, y.copy(), a, n], {1: (a * x.astype("f8") + y, 1e-5, 1e-6)}
    return make


def transpose_case(width, height, tile=None):
    def make(rng):
        import numpy as np
        m = _f32(rng, height, width)
        args = [m, np.zeros(width * height, np.float32), width, height]
        if tile is not None:
            args.append(Local(4 * tile * (tile + 1)))
        return args, {1: (m.T.ravel(), 0, 0)}
    return make


def records_case(n, local):
    def make(rng):
        import numpy as np
        rec = _f32(rng, n * 32)
        want = rec.reshape(n, 32).astype("f8").sum(axis=1)
        return [rec, np.zeros(n, np.float32), n, Local(4 * local * 33)], {1: (want, 1e-5, 1e-5)}
    return make


def parity_case(n, rounds):
    def make(rng):
        import numpy as np
        x = _f32(rng, n)
        v = x.astype("f8")
        even = np.arange(n) % 2 == 0
        for _ in range(rounds):
            v = np.where(even, 0.9 * v + 0.1, 0.25 * v * v - 0.5)
        return [x, np.zeros(n, np.float32), n, rounds], {1: (v, 1e-5, 1e-6)}
    return make


def fir_case(channels, steps):
    def make(rng):
        import numpy as np
        x = _f32(rng, channels * steps)
        coef = _f32(rng, 8, lo=0.1, hi=1.0)
        xs = x.reshape(steps, channels).astype("f8")
        want = np.zeros_like(xs)
        for k in range(min(8, steps)):
            want[k:] += float(coef[k]) * xs[:steps - k]
        return ([x, np.zeros_like(x), Const(coef), channels, steps],
                {1: (want.ravel(), 1e-5, 1e-5)})
    return make


def strided_copy_case(n, stride):
    def make(rng):
        import numpy as np
        src = _f32(rng, n)
        return ([src, np.zeros(n, np.float32), n, stride],
                {1: (src.reshape(n // stride, stride).T.ravel(), 0, 0)})
    return make


def layout_case(n, kernel):
    def make(rng):
        import numpy as np
        abc = _f32(rng, n, 3)
        a, b, c = (abc[:, k].copy() for k in range(3))
        want = 2 * a if kernel.endswith("_one") else a.astype("f8") + b.astype("f8") * c
        front = [abc.ravel()] if kernel.startswith("aos") else [a, b, c]
        return [*front, np.zeros(n, np.float32), n], {len(front): (want, 1e-6, 1e-6)}
    return make


def taps_case(n, constant):
    def make(rng):
        import numpy as np
        x, taps = _f32(rng, n), _f32(rng, 16)
        idx = np.minimum(np.arange(n)[:, None] + np.arange(16)[None, :], n - 1)
        want = (x[idx].astype("f8") * taps[None, :]).sum(axis=1)
        return ([x, np.zeros(n, np.float32), n, Const(taps) if constant else taps],
                {1: (want, 1e-4, 1e-5)})
    return make


def local_stride_case(items, local, stride, reads, words):
    def make(rng):
        import numpy as np
        tile = np.arange(words) % 7
        lid = np.arange(items) % local
        at = (lid[:, None] * stride + np.arange(reads)[None, :]) % words
        return ([np.zeros(items, np.float32), stride, reads, Local(4 * words), words - 1],
                {0: (tile[at].sum(axis=1).astype("f8"), 0, 0)})
    return make


def my_add_case(n, by_column):
    def make(rng):
        import numpy as np
        a, b = _f32(rng, n, n), _f32(rng, n, n)
        parity = (np.arange(n)[None, :] if by_column else np.arange(n)[:, None]) % 2
        want = np.where(parity == 0, a.astype("f8") + b, a.astype("f8") - b)
        return [a, b, np.zeros(n * n, np.float32), n], {2: (want.ravel(), 1e-6, 1e-6)}
    return make


# tests/warp/*.cl, the warp model's own tests: launched as tests/warp_kernels.py launches them
def warp_copy_case(n_in, n_out, index):
    def make(rng):
        import numpy as np
        src = _f32(rng, n_in)
        return [src, np.zeros(n_out, np.float32)], {1: (src[index(n_out)], 0, 0)}
    return make


def warp_tile_case(size, tile):
    def make(rng):
        import numpy as np
        m = _f32(rng, size, size)
        # out at (gy, gx) = in at (block row + gx % T, block column + gy % T): each block transposed
        gy, gx = np.indices((size, size))
        want = m[gy - gy % tile + gx % tile, gx - gx % tile + gy % tile]
        return [m, np.zeros(size * size, np.float32)], {1: (want.ravel(), 0, 0)}
    return make


def warp_branch_case(n, local, cond):
    def make(rng):
        import numpy as np
        x = _f32(rng, n)
        lid = np.arange(n) % local
        v = x.astype("f8")
        want = np.where(cond(lid), np.sin(v) * 2, np.cos(v) + 1)
        return [x, np.zeros(n, np.float32)], {1: (want, 1e-5, 1e-5)}
    return make


def warp_history_case(n, rounds):
    def make(rng):
        import numpy as np
        x = _f32(rng, n)
        i = np.arange(n)
        # s adds, at round k >= 8, the value read at round k - 8: in[(i + j) % n], j < rounds - 8
        want = sum((x[(i + j) % n].astype("f8") for j in range(max(0, rounds - 8))),
                   np.zeros(n))
        return [x, np.zeros(n, np.float32), rounds], {1: (want, 1e-5, 1e-5)}
    return make


def strided_partials_case(n, g):
    """The former exercise dot_partials (notebook 05) as its record made it: x and y uniform in
    [-1, 1); partial[g] = the sum of x[i] y[i] over i = g, g + G, ... < n (the record is gone:
    dot_chains replaced it)."""
    def make(rng):
        import numpy as np
        x, y = _f32(rng, n), _f32(rng, n)
        rows = -(-n // g)
        prod = np.zeros(rows * g)
        prod[:n] = x.astype("f8") * y
        want = prod.reshape(rows, g).sum(axis=0)
        return [x, y, np.zeros(g, np.float32), n], {2: (want, 1e-4, 1e-3)}
    return make


def registry_case(name: str, global_size: tuple, local_size: tuple, params: dict,
                  local_lengths: dict | None = None):
    """An exercise's case as the check makes it: its inputs from the record's ``make_inputs``, its
    outputs checked against the record's ``reference`` within its tolerances (helpers.exercises
    needs numpy only: no pyopencl on the GPU machine). ``local_lengths``: local argument -> its
    length in elements, where the kernel launched is not the exercise's own (a former solution
    whose tile was larger)."""
    def make(rng):
        import numpy as np

        from helpers.exercises import Case, get
        ex = get(name)
        case = Case(global_size, local_size, params)
        inputs = ex.make_inputs(case, rng)
        want = ex.reference(case, inputs)
        args, checks = [], {}
        for i, a in enumerate(ex.args):
            kind = type(a).__name__
            if kind == "Buffer":
                given = inputs.get(a.name)
                args.append(np.array(given, a.dtype).ravel() if given is not None
                            else np.zeros(a.length(case), a.dtype))
                if a.name in want:
                    checks[i] = (np.asarray(want[a.name]).ravel(), ex.compare.rtol, ex.compare.atol)
            elif kind == "Scalar":
                args.append(a.value(case))
            else:
                length = (local_lengths or {}).get(a.name, a.length(case))
                args.append(Local(np.dtype(a.dtype).itemsize * max(length, 1)))
        return args, checks
    return make


# the exercises whose twin comes from the record: at the warp model's representative case
# (helpers.checking.counters.representative_case; tests/test_warp_truth.py holds them to it)
FROM_THE_RECORD = (("column_sums", (4096,), (64,), {"width": 4096, "height": 3}),
                   ("dot_chains", (256,), (64,), {"n": 4096}),
                   ("skewed_tile", (64, 64), (16, 16), {"n": 64}),
                   ("leaky_relu", (4096,), (64,), {"n": 4096}))
MILLION = 1 << 20


def runs() -> list[Run]:
    """Every launch measured: the exercises' solutions and their starting kernels, each at the
    warp model's representative case (helpers.checking.counters.representative_case, so that the
    two stand side by side) and at a moderate size; the studies of coalescing, banks, divergence and
    registers at the sizes of their notebooks' small runs; and the warp model's test kernels
    (tests/warp, launched as tests/warp_kernels.py does), with the copies also at 1M floats."""
    import numpy as np
    r: list[Run] = []
    ex = "exercise"
    # float_copy
    for tag, n, g, ls in (("model case", 4096, 4096, 64), ("1M", MILLION, MILLION, 256)):
        r.append(Run(f"float_copy ({tag})", ex, "solutions/float_copy.cl", "float_copy", (g,),
                     (ls,), {"n": n}, copy_case(n)))
    # strided_fix and saxpy_chunks
    for tag, n, g, ls in (("model case", 4096, 512, 128), ("1M", MILLION, MILLION // 16, 256)):
        for group, file, name in ((ex, "solutions/strided_fix.cl", "strided_fix"),
                                  ("given", "kernels/studies/level3.cl", "saxpy_chunks")):
            r.append(Run(f"{name} ({tag})", group, file, name, (g,), (ls,), {"n": n, "a": 2.5},
                         saxpy_case(n, 2.5)))
    # transpose: the solution at its tile sizes, the naive one (the untiled start)
    for tag, w, h, t in (("model case", 100, 64, 16), ("1024, T=16", 1024, 1024, 16),
                         ("1024, T=32", 1024, 1024, 32)):
        r.append(Run(f"transpose ({tag})", ex, "solutions/transpose.cl", "transpose",
                     (_rounded(w, t), _rounded(h, t)), (t, t),
                     {"width": w, "height": h, "tile_floats": t * (t + 1)},
                     transpose_case(w, h, t)))
    for tag, w, h, loc in (("model case", 100, 64, (16, 16)), ("1024", 1024, 1024, (32, 8))):
        r.append(Run(f"transpose_naive ({tag})", "given", "kernels/studies/access.cl",
                     "transpose_naive", (_rounded(w, loc[0]), _rounded(h, loc[1])), loc,
                     {"width": w, "height": h}, transpose_case(w, h)))
    # bank_fix and record_sums_conflicted
    for tag, n, ls in (("model case", 1000, 64), ("64K records", 1 << 16, 256)):
        for group, file, name in ((ex, "solutions/bank_fix.cl", "bank_fix"),
                                  ("given", "kernels/studies/banks.cl",
                                   "record_sums_conflicted")):
            r.append(Run(f"{name} ({tag})", group, file, name, (_rounded(n, ls),), (ls,),
                         {"n": n, "tile_floats": ls * 33}, records_case(n, ls)))
    # divergence_fix and branches_woven
    for tag, n, rounds, ls in (("model case", 4096, 5, 64), ("1M", MILLION, 16, 256)):
        for group, file, name in ((ex, "solutions/divergence_fix.cl", "divergence_fix"),
                                  ("given", "kernels/studies/level3.cl", "branches_woven")):
            r.append(Run(f"{name} ({tag})", group, file, name, (n,), (ls,),
                         {"n": n, "rounds": rounds}, parity_case(n, rounds)))
    # spill_fix and fir_ring (and the study's shifted array, with and without unrolling)
    for tag, ch, steps, ls in (("model case", 2049, 10, 256), ("64K channels", 1 << 16, 16, 256)):
        for group, file, name in ((ex, "solutions/spill_fix.cl", "spill_fix"),
                                  ("given", "kernels/studies/registers.cl", "fir_ring")):
            r.append(Run(f"{name} ({tag})", group, file, name, (_rounded(ch, ls),), (ls,),
                         {"channels": ch, "steps": steps}, fir_case(ch, steps)))
    for defines in ((), ("NO_UNROLL",)):
        r.append(Run("fir_shift" + (" NO_UNROLL" if defines else "") + " (64K channels)", "study",
                     "kernels/studies/registers.cl", "fir_shift", (1 << 16,), (128,),
                     {"channels": 1 << 16, "steps": 16}, fir_case(1 << 16, 16), defines))
    for name, g, ls, params in FROM_THE_RECORD:
        r.append(Run(f"{name} (model case)", ex, f"solutions/{name}.cl", name, g, ls, params,
                     registry_case(name, g, ls, params)))
    # the exercise skewed_tile replaced (notebook 09), measured on the H100 as "padded_tile (model
    # case)": its solution, rows of T + 1, kept under kernels/studies/ with the same lines; the
    # same inputs and reference as skewed_tile's (out = in + in^T), its tile 16 x 17 floats
    r.append(Run("padded_tile (model case)", "study", "kernels/studies/padded_tile.cl",
                 "padded_tile", (64, 64), (16, 16), {"n": 64},
                 registry_case("skewed_tile", (64, 64), (16, 16), {"n": 64},
                               {"tile": 16 * 17})))
    # the exercise dot_chains replaced (notebook 05), measured on the H100 as "dot_partials (model
    # case)": its solution, one grid-stride chain a work-item, kept under kernels/studies/ with the
    # same lines; inputs and reference as its record made them. dot_chains' own launch ("dot_chains
    # (model case)", from FROM_THE_RECORD) is not measured yet.
    r.append(Run("dot_partials (model case)", "study", "kernels/studies/dot_partials.cl",
                 "dot_partials", (512,), (128,), {"n": 4096}, strided_partials_case(4096, 512)))
    # notebook 08's access patterns (helpers/studies/memory.py at 1M floats)
    st = "study"
    for s in (1, 2, 4, 8, 16, 32, 64):
        r.append(Run(f"strided_copy stride {s}", st, "kernels/studies/access.cl", "strided_copy",
                     (MILLION,), (256,), {"n": MILLION, "stride": s},
                     strided_copy_case(MILLION, s)))
    for name in ("aos_one", "soa_one", "aos_all", "soa_all"):
        r.append(Run(name, st, "kernels/studies/access.cl", name, (MILLION,), (256,),
                     {"n": MILLION}, layout_case(MILLION, name)))
    for pad in (0, 1):
        r.append(Run(f"transpose_tiled PAD={pad} (1024)", st, "kernels/studies/access.cl",
                     "transpose_tiled", (1024, 256), (32, 8), {"width": 1024, "height": 1024},
                     transpose_case(1024, 1024), (f"PAD={pad}",)))
    for name in ("taps_constant", "taps_global"):
        r.append(Run(name, st, "kernels/studies/access.cl", name, (MILLION,), (256,),
                     {"n": MILLION, "taps": 16}, taps_case(MILLION, name == "taps_constant")))
    # notebook 09's banks (helpers/studies/lessons.py's small run; 8192 words: 32 KiB, as on NVIDIA)
    for s in (0, 1, 2, 4, 8, 16, 32, 33):
        r.append(Run(f"local_stride stride {s}", st, "kernels/studies/banks.cl", "local_stride",
                     (1 << 14,), (256,), {"stride": s, "reads": 64, "words": 8192},
                     local_stride_case(1 << 14, 256, s, 64, 8192)))
    # notebook 10's MyAdd family (helpers/studies/memory.py: 1024 x 1024, work-groups 32 x 8)
    for name, shape in (("my_add", "rows"), ("my_add_2d", "i-first"),
                        ("my_add_2d_unweave", "i-first"), ("my_add_2d_coalesced", "j-first"),
                        ("my_add_col", "rows"), ("my_add_2d_col", "i-first"),
                        ("my_add_2d_unweave_col", "i-first")):
        g, loc = ((1024,), (64,)) if shape == "rows" else ((1024, 1024), (32, 8))
        r.append(Run(name, st, "kernels/studies/divergence.cl", name, g, loc, {"N": 1024},
                     my_add_case(1024, name.endswith("_col"))))
    # the warp model's tests (tests/warp_kernels.py's RUNS: N = 4096, work-groups of 256)
    sy, n = "synthetic", 4096
    for tag, size in (("4096", n), ("1M", MILLION)):
        r.append(Run(f"copy ({tag})", sy, "tests/warp/copy.cl", "copy", (size,), (256,),
                     {"n": size}, warp_copy_case(size, size, lambda m: np.arange(m))))
        r.append(Run(f"strided in[i*32] ({tag})", sy, "tests/warp/strided.cl", "strided",
                     (size,), (256,), {"n": size, "in_floats": 32 * size},
                     warp_copy_case(32 * size, size, lambda m: np.arange(m) * 32)))
        r.append(Run(f"copy4 float4 ({tag})", sy, "tests/warp/copy4.cl", "copy4", (size,), (256,),
                     {"n_float4": size},
                     warp_copy_case(4 * size, 4 * size, lambda m: np.arange(m))))
    for t in (32, 16):
        for pad in (0, 1):
            r.append(Run(f"tile {t}x{t + pad}", sy, "tests/warp/tile.cl", "tile", (64, 64), (t, t),
                         {"size": 64}, warp_tile_case(64, t), (f"TILE={t}", f"PAD={pad}")))
    for tag, cond, fn in (("lid % 2", "(l%2)==0", lambda lid: lid % 2 == 0),
                          ("lid / 32", "(l/32)%2==0", lambda lid: (lid // 32) % 2 == 0)):
        r.append(Run(f"branch on {tag}", sy, "tests/warp/branch.cl", "branch", (n,), (256,),
                     {"n": n}, warp_branch_case(n, 256, fn), (f"CONDITION={cond}",)))
    for name in ("ring", "scalars"):
        r.append(Run(f"{name} (private history)", sy, f"tests/warp/{name}.cl", name, (1024,),
                     (256,), {"n": 1024, "rounds": 20}, warp_history_case(1024, 20)))
    return r


# ------------------------------------------------------------------------------------------------
# Compiling and launching (cupy, on the GPU)

_modules: dict = {}


def twin_of(file: str) -> Twin:
    return rewrite((ROOT / file).read_text())


def _module(run: Run):
    import cupy as cp
    key = (run.file, run.defines)
    if key not in _modules:
        twin = twin_of(run.file)
        options = tuple(f"-D{d}" for d in run.defines) + ("-lineinfo",)
        _modules[key] = (cp.RawModule(code=twin.source, options=options), twin)
    return _modules[key]


def launch(run: Run, seed: int = 44) -> dict:
    """Compiles (once per file and defines), runs ``run`` once, checks its outputs against numpy;
    returns the record of the launch."""
    import cupy as cp
    import numpy as np
    module, twin = _module(run)
    params = twin.kernels[run.kernel]
    args, checks = run.make(np.random.default_rng(seed))
    if len(args) != len(params):
        raise ValueError(f"{run.kernel}: {len(args)} arguments for {len(params)} parameters")
    device_args, on_device, shared = [], {}, 0
    for i, (p, a) in enumerate(zip(params, args, strict=True)):
        if p.kind == "local":
            shared = a.nbytes
        elif p.kind == "constant":
            host = np.ascontiguousarray(a.array)
            if host.size > CONSTANT_CAPACITY:
                raise ValueError(f"{p.name}: {host.size} elements, at most {CONSTANT_CAPACITY}")
            ptr = module.get_global(f"__cl_const_{run.kernel}_{p.name}")
            ptr.copy_from_host(host.ctypes.data, host.nbytes)
        elif p.kind == "global":
            on_device[i] = cp.asarray(np.ascontiguousarray(a))
            device_args.append(on_device[i])
        else:
            device_args.append(np.dtype(SCALARS[p.base]).type(a))
    grid = tuple(g // ls for g, ls in zip(run.global_size, run.local_size, strict=True))
    if any(g % ls for g, ls in zip(run.global_size, run.local_size, strict=True)):
        raise ValueError(f"{run.label}: the global size is no multiple of the local size")
    kernel = module.get_function(run.kernel)
    kernel(grid, tuple(run.local_size), tuple(device_args), shared_mem=shared)
    cp.cuda.Device().synchronize()
    check = {"ok": True}
    for i, (want, rtol, atol) in checks.items():
        got = on_device[i].get().astype("f8")
        want = np.asarray(want, "f8").ravel()
        err = float(np.max(np.abs(got - want))) if want.size else 0.0
        ok = got.shape == want.shape and bool(np.allclose(got, want, rtol=rtol, atol=atol))
        check.update({"ok": check["ok"] and ok, "output": params[i].name, "max_abs_error": err,
                      "rtol": rtol, "atol": atol})
    return {"label": run.label, "group": run.group, "file": run.file, "kernel": run.kernel,
            "defines": list(run.defines), "global_size": list(run.global_size),
            "local_size": list(run.local_size), "grid": list(grid),
            "dynamic_shared_bytes": shared, "params": run.params,
            "registers_per_thread": getattr(kernel, "num_regs", None),
            "local_bytes_per_thread": getattr(kernel, "local_size_bytes", None),
            "static_shared_bytes": getattr(kernel, "shared_size_bytes", None), "check": check}


def launch_all(record: Path, only: str | None) -> int:
    done = []
    for run in runs():
        if only and not re.search(only, run.label):
            continue
        try:
            done.append(launch(run))
        except Exception as e:     # recorded, and the others still run
            done.append({"label": run.label, "kernel": run.kernel, "file": run.file,
                         "error": f"{type(e).__name__}: {e}"[:2000]})
        print(done[-1]["label"], "ok" if done[-1].get("check", {}).get("ok") else
              "FAILED " + done[-1].get("error", json.dumps(done[-1].get("check"))), flush=True)
        record.write_text(json.dumps(done, indent=1) + "\n")   # after each: a cut run keeps it
    return 0 if all(d.get("check", {}).get("ok") for d in done) else 1


# ------------------------------------------------------------------------------------------------
# Nsight Compute

METRICS = (
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "smsp__sass_inst_executed_op_global_ld.sum",
    "smsp__sass_inst_executed_op_global_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_branch_targets.sum",
    "smsp__sass_branch_targets_threads_divergent.sum",
    "smsp__sass_branch_targets_threads_uniform.sum",
    "smsp__sass_inst_executed_op_local_ld.sum",
    "smsp__sass_inst_executed_op_local_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
    "smsp__sass_inst_executed_op_ldc.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
)
SHORT = {  # the table's columns
    "ld req": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "ld sect": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "st req": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "st sect": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "sh ld": "smsp__sass_inst_executed_op_shared_ld.sum",
    "sh ld wf": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "sh ld cf": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "sh st wf": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "br": "smsp__sass_branch_targets.sum",
    "div": "smsp__sass_branch_targets_threads_divergent.sum",
    "loc ld": "smsp__sass_inst_executed_op_local_ld.sum",
    "loc st": "smsp__sass_inst_executed_op_local_st.sum",
}


def _run_text(cmd: list[str]) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        return (done.stdout + done.stderr).strip()
    except (OSError, subprocess.SubprocessError) as e:
        return f"({type(e).__name__}: {e})"


def available_metrics(ncu: str) -> tuple[list[str], list[str], str]:
    """The metrics of METRICS this device's Nsight Compute knows (``ncu --query-metrics``), the
    rest, and the query's text."""
    text = _run_text([ncu, "--query-metrics"])
    known = set(re.findall(r"^([a-z0-9]+__\w+)", text, re.M))
    if len(known) < 50:          # the query failed or changed its form: ask for all of them
        return list(METRICS), [], text
    have = [m for m in METRICS if m.rsplit(".", 1)[0] in known]
    return have, [m for m in METRICS if m not in have], text


def _number(text: str):
    t = text.replace(",", "").strip()
    try:
        v = float(t)
    except ValueError:
        return t or None
    return int(v) if v.is_integer() else v


def parse_ncu_csv(text: str) -> list[dict]:
    """ncu's ``--csv --print-units base`` log: one dict per profiled kernel, in order, with its
    name, block and grid and its metrics."""
    lines = [x for x in text.splitlines() if x.startswith('"')]
    kernels: dict[str, dict] = {}
    for row in csv.DictReader(lines):
        k = kernels.setdefault(row["ID"], {"id": int(row["ID"]), "name": row["Kernel Name"],
                                           "block": row.get("Block Size"),
                                           "grid": row.get("Grid Size"), "metrics": {}})
        k["metrics"][row["Metric Name"]] = _number(row["Metric Value"])
    return sorted(kernels.values(), key=lambda k: k["id"])


def _ratio(a, b):
    return round(a / b, 4) if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b \
        else None


def derived(m: dict) -> dict:
    g = lambda k: m.get(k)  # noqa: E731
    ld_r, ld_s = g(SHORT["ld req"]), g(SHORT["ld sect"])
    st_r, st_s = g(SHORT["st req"]), g(SHORT["st sect"])
    both = (ld_r + st_r, ld_s + st_s) if None not in (ld_r, st_r, ld_s, st_s) else (None, None)
    return {
        "global_load_sectors_per_request": _ratio(ld_s, ld_r),
        "global_store_sectors_per_request": _ratio(st_s, st_r),
        "global_sectors_per_request": _ratio(both[1], both[0]),
        "shared_load_wavefronts_per_instruction": _ratio(g(SHORT["sh ld wf"]), g(SHORT["sh ld"])),
        "shared_store_wavefronts_per_instruction": _ratio(
            g(SHORT["sh st wf"]), g("smsp__sass_inst_executed_op_shared_st.sum")),
        "branch_targets": g(SHORT["br"]),
        "divergent_branch_targets": g(SHORT["div"]),
        "local_instructions": (g(SHORT["loc ld"]) or 0) + (g(SHORT["loc st"]) or 0)
        if g(SHORT["loc ld"]) is not None else None,
    }


def versions(ncu: str) -> dict:
    import cupy as cp
    import numpy as np
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    smi = _run_text(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    ncu_version = _run_text([ncu, "--version"]).splitlines()
    return {"device": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
            "compute_capability": f"{props['major']}.{props['minor']}",
            "nvidia_smi": smi, "cuda_driver_api": cp.cuda.runtime.driverGetVersion(),
            "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
            "nvrtc": ".".join(map(str, cp.cuda.nvrtc.getVersion())),
            "cupy": cp.__version__, "numpy": np.__version__, "python": platform.python_version(),
            "ncu": ncu_version[-1] if ncu_version else None, "ncu_path": ncu,
            "host": platform.node()}


def _bounded(cmd: list[str], seconds: int) -> int:
    """Runs ``cmd`` in a process group of its own, ended whole after ``seconds`` (ncu's target
    is its child); its exit status, or 124."""
    proc = subprocess.Popen(cmd, start_new_session=True)
    try:
        return proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        print(f"# stopped after {seconds} s: {' '.join(cmd[:3])} ...", flush=True)
        return 124


WORK_FILES = ("twins-plain.json", "twins-profiled.json", "ncu-raw.csv", "run.json")


def measure(out: Path, ncu: str, only: str | None) -> int:
    """The plain run, then the run under ncu; their files in ``out``'s folder (WORK_FILES), then
    :func:`assemble`."""
    work = out.parent
    plain, profiled, raw, meta = (work / f for f in WORK_FILES)
    me = [sys.executable, str(Path(__file__).resolve())]
    extra = ["--only", only] if only else []
    print("# plain run (no profiler): compile, launch, check", flush=True)
    plain_rc = _bounded([*me, "launch", "--record", str(plain), *extra], 300)
    metrics, missing, query = available_metrics(ncu)
    (work / "ncu-query-metrics.txt").write_text(query + "\n")
    print(f"# under ncu: {len(metrics)} metrics ({len(missing)} unknown here: {missing})",
          flush=True)
    cmd = [ncu, "--metrics", ",".join(metrics), "--csv", "--print-units", "base",
           "--log-file", str(raw), *me, "launch", "--record", str(profiled), *extra]
    started = datetime.datetime.now(datetime.timezone.utc)
    ncu_rc = _bounded(cmd, int(os.environ.get("NCU_TIMEOUT", "420")))
    seconds = (datetime.datetime.now(datetime.timezone.utc) - started).total_seconds()
    meta.write_text(json.dumps({
        "date": started.date().isoformat(), "environment": versions(ncu),
        "metrics": metrics, "metrics_unknown_here": missing,
        "ncu_command": " ".join(cmd[:cmd.index("--log-file")]) + " ... launch",
        "ncu_seconds": round(seconds, 1), "ncu_exit": ncu_rc, "plain_exit": plain_rc},
        indent=1) + "\n")
    return assemble(work, out)


def assemble(work: Path, out: Path) -> int:
    """The JSON of a measurement from its files in ``work`` (also here, from the files that came
    back), then the table."""
    plain, profiled, raw, meta = (work / f for f in WORK_FILES)
    run = json.loads(meta.read_text())
    records = json.loads(profiled.read_text()) if profiled.exists() else []
    first = {r["label"]: r for r in json.loads(plain.read_text())} if plain.exists() else {}
    kernels = parse_ncu_csv(raw.read_text()) if raw.exists() else []
    launched = [r for r in records if "error" not in r]
    # the k-th profiled kernel is the k-th launch; the names say so, or nothing is mapped (a run
    # cut short by the time limit keeps the launches profiled before it)
    names_agree = all(k["name"].split("(")[0] == r["kernel"] for k, r in zip(kernels, launched, strict=False))
    mapped = names_agree and len(kernels) == len(launched)
    for r in records:
        r["check_without_profiler"] = first.get(r["label"], {}).get("check")
    if names_agree:
        for k, r in zip(kernels, launched, strict=False):
            r["ncu"] = {"id": k["id"], "name": k["name"], "block": k["block"], "grid": k["grid"]}
            r["metrics"] = k["metrics"]
            r["derived"] = derived(k["metrics"])
    result = {
        "written_by": "tools/h100_warp_truth.sh (python3 tools/cuda_twins.py measure)",
        "what": "Nsight Compute's counters for CUDA twins of the course's OpenCL kernels (issue 44 "
                "point 6): global load/store requests and 32-byte sectors in L1TEX, shared-memory "
                "wavefronts and bank conflicts, SASS branch targets and divergent ones, local-"
                "memory (spill) instructions; each launch checked against numpy first",
        **run,
        "how": "\n\n".join(__doc__.split("\n\n")[:4]),
        "header": HEADER,
        "profiled_kernels": len(kernels), "launches": len(launched),
        "mapped_by_order_and_name": mapped,
        "kernels": records,
    }
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"# wrote {out}: {len(launched)} launches, {len(kernels)} profiled, mapped {mapped}, "
          f"ncu {run['ncu_seconds']:.0f} s", flush=True)
    print(table(result))
    return 0 if mapped and run["ncu_exit"] == 0 and run["plain_exit"] == 0 else 1


def table(result: dict) -> str:
    env = result["environment"]
    head = ["kernel", *SHORT, "ld s/r", "st s/r", "ok"]
    rows = [head]
    for r in result["kernels"]:
        m = r.get("metrics", {})
        d = r.get("derived", {})
        cells = [r["label"]] + [str(m.get(v, "-")) for v in SHORT.values()] + [
            str(d.get("global_load_sectors_per_request", "-")),
            str(d.get("global_store_sectors_per_request", "-")),
            "yes" if r.get("check", {}).get("ok") else "NO " + r.get("error", "")[:60]]
        rows.append(cells)
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [f"# {env.get('device')} ({env.get('nvidia_smi')}), {env.get('ncu')}, cupy "
             f"{env.get('cupy')}, CUDA runtime {env.get('cuda_runtime')}, {result['date']}"]
    lines += ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                        enumerate(zip(row, widths, strict=True))) for row in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sources", help="write every twin's CUDA source into DIR (no GPU)")
    s.add_argument("dir", type=Path)
    la = sub.add_parser("launch", help="run and check every twin once")
    la.add_argument("--record", type=Path, required=True)
    la.add_argument("--only")
    me = sub.add_parser("measure", help="launch, then launch under ncu; JSON and a table")
    me.add_argument("--out", type=Path, required=True)
    me.add_argument("--ncu", default=os.environ.get("NCU", "/usr/local/cuda/bin/ncu"))
    me.add_argument("--only")
    asm = sub.add_parser("assemble", help="the JSON again from a measurement's files in WORK")
    asm.add_argument("work", type=Path)
    asm.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    if a.cmd == "sources":
        a.dir.mkdir(parents=True, exist_ok=True)
        seen = set()
        for run in runs():
            if (run.file, run.defines) in seen:
                continue
            seen.add((run.file, run.defines))
            name = Path(run.file).stem + "".join("_" + re.sub(r"\W", "", d) for d in run.defines)
            defines = "".join(f"#define {d.replace('=', ' ', 1)}\n" for d in run.defines)
            (a.dir / f"{name}.cu").write_text(defines + twin_of(run.file).source)
        print(f"{len(seen)} twins in {a.dir}")
        return 0
    if a.cmd == "launch":
        return launch_all(a.record, a.only)
    if a.cmd == "assemble":
        return assemble(a.work, a.out)
    return measure(a.out, a.ncu, a.only)


if __name__ == "__main__":
    sys.exit(main())
