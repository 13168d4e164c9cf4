"""The warp model beside Nsight Compute (issue 44 point 6): every launch of the H100's truth
(``results/history/warp-truth-nvidia-h100.json``, written by ``tools/h100_warp_truth.sh`` from
``tools/cuda_twins.py``'s CUDA twins) run again on Oclgrind with the warp model's plugin loaded:
the same ``.cl`` source, the same inputs (``cuda_twins.runs()``' numpy cases, seed 44), the same
global and local sizes and ``-D`` defines, checked against the same numpy reference. Each launch
runs in a fresh child process (Oclgrind reads ``OCLGRIND_PLUGINS`` when its platform loads; the
plugin appends one JSON line to ``COURSE_WARP_OUT``), built as the course builds (optimized; the
exercises whose counters are taken from another build, ``divergence_fix``'s ``-cl-opt-disable``,
are run both ways).

    python tools/warp_vs_nsight.py                  # run, write the JSON, print the table
    python tools/warp_vs_nsight.py --only REGEX     # some launches (the JSON is not written)
    python tools/warp_vs_nsight.py --doc [--check]  # docs/warp-model.md's section from the JSON

The JSON (``results/reference/warp-model-vs-nsight-h100.json``, read by ``tests/test_warp_truth.py``
and rendered into docs/warp-model.md, "Checked against an H100") holds for each launch both sides'
figures and raw counts: global sectors per request of loads and stores, local-load wavefronts per
request (per shared-load instruction on the GPU) and in all, divergent and total branches (branch targets on
the GPU), private accesses (CUDA's local-memory instructions), the ratio model / Nsight and whether
they agree (within 5%; counts of zero agree only with zero); with Oclgrind's version, the plugin's
digest, the date and the truth file. Where the truth has a kernel both at the warp model's
representative size and at 1M elements (or 64K records or channels), the representative launch is
compared and the larger one left out, with its reason: the verdicts count that case, and the run
stays within about ten minutes on 2 cores (5-8 minutes).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT

TRUTH = ROOT / "results" / "history" / "warp-truth-nvidia-h100.json"
OUT = ROOT / "results" / "reference" / "warp-model-vs-nsight-h100.json"
DOC = ROOT / "docs" / "warp-model.md"
BEGIN = "<!-- warp-vs-nsight: begin (python tools/warp_vs_nsight.py --doc) -->"
END = "<!-- warp-vs-nsight: end -->"
TOLERANCE = 0.05          # model / Nsight within 5% agrees
CHILD_TIMEOUT = 240       # seconds for one launch on Oclgrind

# Launches left out, and why: each is the same kernel as a launch compared at the warp model's
# representative size (its "model case"), at a size Oclgrind takes long to simulate.
LARGER_TWIN = re.compile(r"^(float_copy|strided_fix|saxpy_chunks|bank_fix|record_sums_conflicted|"
                         r"divergence_fix|branches_woven|spill_fix|fir_ring|copy|copy4 float4|"
                         r"strided in\[i\*32\]) \((1M|64K records|64K channels)\)$")
SMALLER = {"copy": "copy (4096)", "copy4 float4": "copy4 float4 (4096)",
           "strided in[i*32]": "strided in[i*32] (4096)"}


def _twins():
    spec = importlib.util.spec_from_file_location("tool_cuda_twins", ROOT / "tools" / "cuda_twins.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


HOW = __doc__.split("\n\n")[0] + "\n\n" + __doc__.split("\n\n")[2]


def technique_builds() -> dict[str, tuple[str, ...]]:
    """Kernel function -> the build options its exercise's counters use, where not the default."""
    from helpers.checking.counters import technique_build
    from helpers.exercises import get
    out = {}
    for name, given in (("divergence_fix", "branches_woven"),):
        options = technique_build(get(name))
        if options:
            out[name] = out[given] = options
    return out


# ------------------------------------------------------------------------------------------------
# The child: one launch on Oclgrind (the plugin already in its environment)

def child(label: str, options: str, record: Path) -> int:
    import numpy as np
    import pyopencl as cl

    from helpers.device import oclgrind_device
    tw = _twins()
    run = next(r for r in tw.runs() if r.label == label)
    source = (ROOT / run.file).read_text()
    params = tw.rewrite(source).kernels[run.kernel]
    dev = oclgrind_device()
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx)
    build = " ".join([*(f"-D{d}" for d in run.defines), *options.split()])
    prg = cl.Program(ctx, source).build(options=build)
    args, checks = run.make(np.random.default_rng(44))
    mf = cl.mem_flags
    cl_args, buffers = [], {}
    for i, (p, a) in enumerate(zip(params, args, strict=True)):
        if p.kind == "local":
            cl_args.append(cl.LocalMemory(a.nbytes))
        elif p.kind == "constant":
            host = np.ascontiguousarray(a.array)
            cl_args.append(cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=host))
        elif p.kind == "global":   # exactly as long as the data, as the twin's
            host = np.ascontiguousarray(a)
            buffers[i] = (cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=host), host)
            cl_args.append(buffers[i][0])
        else:
            cl_args.append(np.dtype(tw.SCALARS[p.base]).type(a))
    started = time.perf_counter()
    getattr(prg, run.kernel)(queue, tuple(run.global_size), tuple(run.local_size), *cl_args)
    queue.finish()
    seconds = time.perf_counter() - started
    check = {"ok": True}
    for i, (want, rtol, atol) in checks.items():
        buf, host = buffers[i]
        got = np.empty_like(host)
        cl.enqueue_copy(queue, got, buf)
        got = got.astype("f8").ravel()
        want = np.asarray(want, "f8").ravel()
        ok = got.shape == want.shape and bool(np.allclose(got, want, rtol=rtol, atol=atol))
        check.update({"ok": check["ok"] and ok, "output": params[i].name,
                      "max_abs_error": float(np.max(np.abs(got - want))) if want.size else 0.0})
    record.write_text(json.dumps({"label": label, "build_options": build, "oclgrind_s":
                                  round(seconds, 2), "check": check}) + "\n")
    return 0


# ------------------------------------------------------------------------------------------------
# The parent: plan, run each launch in its child, compare

def plan(truth: dict, only: str | None) -> list[dict]:
    """Each truth launch: to run (with its build options) or left out with the reason."""
    builds = technique_builds()
    labels = {k["label"] for k in truth["kernels"]}
    out = []
    for k in truth["kernels"]:
        label = k["label"]
        if only and not re.search(only, label):
            continue
        item = {"label": label, "kernel": k["kernel"], "file": k["file"]}
        m = LARGER_TWIN.match(label)
        smaller = SMALLER.get(m.group(1), f"{m.group(1)} (model case)") if m else None
        if smaller and smaller in labels:
            item["skipped"] = (f"the same kernel is compared at the warp model's representative "
                               f"size ({smaller}), the case its verdicts count; the larger launch "
                               f"would add seconds to a minute of Oclgrind to a run kept near ten "
                               f"minutes on 2 cores")
        else:
            item["builds"] = [""] + ([" ".join(builds[k["kernel"]])]
                                     if k["kernel"] in builds else [])
        out.append(item)
    return out


def run_one(label: str, options: str, plugin: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="warp-vs-nsight-") as tmp:
        warp, record = Path(tmp) / "warp.jsonl", Path(tmp) / "record.json"
        env = {**os.environ, "OCLGRIND_PLUGINS": str(plugin), "COURSE_WARP_OUT": str(warp),
               "PYTHONPATH": str(ROOT)}
        for k in ("COURSE_WARP_SIZE", "COURSE_WARP_BANKS", "COURSE_WARP_BANK_BYTES",
                  "COURSE_WARP_SECTOR_BYTES"):
            env.pop(k, None)     # the H100's: warps of 32, 32 banks of 4 bytes, 32-byte sectors
        cmd = [sys.executable, str(Path(__file__).resolve()), "child", label,
               f"--options={options}", "--record", str(record)]
        started = time.perf_counter()
        try:
            done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                                  timeout=CHILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            return {"error": f"Oclgrind took over {CHILD_TIMEOUT} s"}
        wall = round(time.perf_counter() - started, 2)
        if done.returncode != 0 or not record.exists():
            return {"error": (done.stderr or done.stdout).strip()[-1500:], "wall_s": wall}
        result = json.loads(record.read_text())
        lines = [json.loads(x) for x in warp.read_text().splitlines() if x.strip()] \
            if warp.exists() else []
        if len(lines) != 1:
            return {**result, "wall_s": wall,
                    "error": f"the plugin reported {len(lines)} launches, not 1"}
        return {**result, "wall_s": wall, "plugin": lines[0]}


def _ratio(a, b):
    return round(a / b, 4) if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b \
        else None


def _c(counts: dict, what: str, field: str) -> int:
    return counts.get(what, {}).get(field, 0)


def model_side(plugin: dict) -> dict:
    c = plugin["counts"]
    return {
        "global_load_requests": _c(c, "global load", "requests"),
        "global_load_sectors": _c(c, "global load", "units"),
        "global_store_requests": _c(c, "global store", "requests"),
        "global_store_sectors": _c(c, "global store", "units"),
        "local_load_requests": _c(c, "local load", "requests"),
        "local_load_wavefronts": _c(c, "local load", "units"),
        "local_store_requests": _c(c, "local store", "requests"),
        "local_store_wavefronts": _c(c, "local store", "units"),
        "branches": _c(c, "branch", "requests"),
        "divergent_branches": _c(c, "branch", "divergent"),
        "private_requests": _c(c, "private load", "requests") + _c(c, "private store", "requests"),
        "private_accesses": _c(c, "private load", "lanes") + _c(c, "private store", "lanes"),
        "constant_load_requests": _c(c, "constant load", "requests"),
    }


def nsight_side(metrics: dict) -> dict:
    g = lambda k: metrics.get(k)  # noqa: E731
    loc = [g("smsp__sass_inst_executed_op_local_ld.sum"), g("smsp__sass_inst_executed_op_local_st.sum")]
    return {
        "global_load_requests": g("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
        "global_load_sectors": g("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
        "global_store_requests": g("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
        "global_store_sectors": g("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
        "local_load_requests": g("smsp__sass_inst_executed_op_shared_ld.sum"),
        "local_load_wavefronts": g("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
        "local_load_bank_conflicts": g("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
        "local_store_requests": g("smsp__sass_inst_executed_op_shared_st.sum"),
        "local_store_wavefronts": g("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
        "branches": g("smsp__sass_branch_targets.sum"),
        "divergent_branches": g("smsp__sass_branch_targets_threads_divergent.sum"),
        "private_requests": None if None in loc else sum(loc),
        "private_sectors": (g("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum") or 0)
        + (g("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum") or 0),
        "constant_load_instructions": g("smsp__sass_inst_executed_op_ldc.sum"),
    }


def figures(side: dict) -> dict:
    """The figures compared: sectors per request, wavefronts per local-load request, divergent
    branches, private requests (warp-level: CUDA's local-memory instructions)."""
    return {
        "global_load_sectors_per_request": _ratio(side["global_load_sectors"],
                                                  side["global_load_requests"]),
        "global_store_sectors_per_request": _ratio(side["global_store_sectors"],
                                                   side["global_store_requests"]),
        "local_load_wavefronts_per_request": _ratio(side["local_load_wavefronts"],
                                                    side["local_load_requests"]),
        "local_load_wavefronts": side["local_load_wavefronts"],
        "divergent_branches": side["divergent_branches"],
        "branches": side["branches"],
        "private_requests": side["private_requests"],
    }


JUDGED = ("global_load_sectors_per_request", "global_store_sectors_per_request",
          "local_load_wavefronts_per_request", "local_load_wavefronts", "divergent_branches",
          "private_requests")
# what a build made for one verdict is judged on: -cl-opt-disable keeps every variable in
# private memory, and the divergence_fix verdict it is made for counts branches only
JUDGED_EXTRA_BUILD = tuple(k for k in JUDGED if k != "private_requests")
SHORT = {"global_load_sectors_per_request": "ld sectors/req",
         "global_store_sectors_per_request": "st sectors/req",
         "local_load_wavefronts_per_request": "local ld wavefronts/req",
         "local_load_wavefronts": "local ld wavefronts",
         "divergent_branches": "divergent branches", "private_requests": "private requests"}


def agreement(model: dict, nsight: dict, judged: tuple = JUDGED) -> dict:
    """Per judged figure: model, Nsight, model / Nsight, agree (within TOLERANCE; a figure
    neither side has, as a store's sectors where the kernel stores nothing, is left out)."""
    out = {}
    for k in judged:
        a, b = model.get(k), nsight.get(k)
        if (a is None or a == 0) and (b is None or b == 0):
            if a == 0 or b == 0:
                out[k] = {"model": a, "nsight": b, "ratio": None, "agree": True}
            continue
        if a is None or b is None:
            out[k] = {"model": a, "nsight": b, "ratio": None, "agree": False}
            continue
        r = _ratio(a, b)
        out[k] = {"model": a, "nsight": b, "ratio": r,
                  "agree": r is not None and abs(r - 1) <= TOLERANCE}
    return out


def versions(plugin: Path) -> dict:
    import importlib.metadata as md

    import pyopencl as cl

    from helpers.device import oclgrind_device
    from helpers.warp import build
    dev = oclgrind_device()
    grind = build.find_oclgrind()
    return {"oclgrind": dev.platform.version if dev else None,
            "oclgrind_wheel": md.version(build.WHEEL),
            "oclgrind_library": grind.library.name if not isinstance(grind, str) else None,
            "plugin": plugin.name,
            "plugin_sha256": hashlib.sha256(plugin.read_bytes()).hexdigest()[:16],
            "model_source_sha256": hashlib.sha256(
                b"".join(s.read_bytes() for s in build.SOURCES)).hexdigest()[:16],
            "pyopencl": cl.VERSION_TEXT, "numpy": md.version("numpy"),
            "python": platform.python_version(), "machine": f"{platform.machine()}, "
            f"{os.cpu_count()} cores"}


def _git_tree() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                              capture_output=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def compare(only: str | None) -> dict:
    from helpers.warp import build
    built = build.plugin()
    if built.path is None:
        raise SystemExit(f"no warp model: {built.why}")
    truth = json.loads(TRUTH.read_text())
    by_label = {k["label"]: k for k in truth["kernels"]}
    started = time.perf_counter()
    launches = []
    for item in plan(truth, only):
        t = by_label[item["label"]]
        nsight = nsight_side(t["metrics"])
        entry = {**item, "global_size": t["global_size"], "local_size": t["local_size"],
                 "defines": t.get("defines", []), "nsight": {**nsight, **figures(nsight)},
                 "nsight_check": t["check"]["ok"]}
        if "skipped" in item:
            print(f"{item['label']}: left out ({item['skipped']})", flush=True)
            launches.append(entry)
            continue
        entry["model_runs"] = []
        for n, options in enumerate(item.pop("builds")):
            got = run_one(item["label"], options, built.path)
            one = {"build_options": got.get("build_options", options),
                   "oclgrind_s": got.get("oclgrind_s"), "wall_s": got.get("wall_s"),
                   "check": got.get("check")}
            if "error" in got:
                one["error"] = got["error"]
            if "plugin" in got:
                side = model_side(got["plugin"])
                one["model"] = {**side, **figures(side)}
                one["worst"] = got["plugin"].get("worst")
                one["agreement"] = agreement(one["model"], entry["nsight"],
                                             JUDGED_EXTRA_BUILD if n else JUDGED)
                one["agree"] = all(v["agree"] for v in one["agreement"].values())
            entry["model_runs"].append(one)
            print(f"{item['label']}{' [' + options + ']' if options else ''}: "
                  f"{'agree' if one.get('agree') else 'DIFFER' if 'agree' in one else 'ERROR'} "
                  f"({got.get('wall_s')} s)" + (f" {one['error'][-300:]}" if 'error' in one
                                                else ""), flush=True)
        first = entry["model_runs"][0]
        entry.update({k: first[k] for k in ("model", "agreement", "agree") if k in first})
        entry["why"] = WHY.get(item["label"]) if not first.get("agree", True) else None
        launches.append(entry)
    seconds = round(time.perf_counter() - started, 1)
    compared = [x for x in launches if "agree" in x]
    return {
        "written_by": "python tools/warp_vs_nsight.py",
        "what": "the warp model's counters (Oclgrind and helpers/warp's plugin) beside Nsight "
                "Compute's for the same launches of the same kernels on an H100 (their CUDA twins: "
                "tools/cuda_twins.py), issue 44 point 6",
        "date": datetime.date.today().isoformat(), "tree": _git_tree(),
        "truth": {"file": str(TRUTH.relative_to(ROOT)), "date": truth["date"],
                  "sha256": hashlib.sha256(TRUTH.read_bytes()).hexdigest()[:16],
                  "device": truth["environment"]["device"], "ncu": truth["environment"]["ncu"],
                  "driver": truth["environment"]["nvidia_smi"]},
        "environment": versions(built.path),
        "tolerance": TOLERANCE,
        "judged": list(JUDGED),
        "how": HOW,
        "seconds": seconds,
        "launches_in_truth": len(truth["kernels"]),
        "compared": len(compared), "agree": sum(1 for x in compared if x["agree"]),
        "left_out": sum(1 for x in launches if "skipped" in x),
        "errors": sum(1 for x in launches if "model_runs" in x and "agree" not in x),
        "launches": launches,
    }


# Why a launch's counters differ, from the twin's SASS and the model's view of the LLVM code. A
# launch that differs without an entry here is shown as "(not explained)".
_CONSTANT = ("the model counts the loads of the `__constant float *coef` argument as global loads "
             "(one sector each: every lane reads the same word): Oclgrind keeps `__constant` "
             "buffers in its global memory, so the plugin sees global accesses, where NVIDIA reads "
             "them through the constant cache (`LDC`), which Nsight does not count as global")
_CONSTANT_AGAIN = ("the `__constant` taps counted as global loads of one sector, as in spill_fix")
_EXIT = ("its one divergent branch is `if (c >= channels) return;` in the warp of channel 2,048 "
         "(2,049 channels), whose other 31 lanes leave: NVIDIA ends them with a predicated exit, "
         "no divergent branch target")
WHY = {
    "transpose (model case)":
        "NVIDIA's compiler predicated the bounds checks: the whole kernel has no branch (0 branch "
        "targets). The model counts the LLVM branch around them, split in the 32 warps of the "
        "right-edge work-groups, whose columns 100 to 111 lie outside the 100-wide matrix. "
        "Sectors and wavefronts agree exactly (4.57 / 4.00 sectors, 2.00 wavefronts).",
    "transpose_naive (model case)":
        "the same predicated bounds check as the tiled solution's: 32 divergent branches in the "
        "model, no branch on the GPU; the sectors agree exactly (4.57 / 14.29).",
    "bank_fix (model case)":
        "the last work-group holds 40 records of 64: the model counts the branch of `if (lid < "
        "count)` split in its warp of lanes 32-63, where NVIDIA predicated the store (no "
        "divergent target). Wavefronts agree exactly (1.00 a read; 1,024 shared loads and "
        "1,024 wavefronts on both sides).",
    "record_sums_conflicted (model case)":
        "NVIDIA's compiler vectorized the 32 scalar reads of a record in the tile "
        "(`tile[lid * 32 + f]`, f = 0 to 31) into 8 16-byte loads. Each is still a 32-way "
        "conflict (31.25 wavefronts per instruction here, 32.00 at 64K records: the model's "
        "degree), but a warp issues 8 of them, 256 wavefronts, where the model counts the 32 reads "
        "as written, 1,024 wavefronts: 32,768 against 8,000 in all. Also the divergent branch "
        "of `if (lid < count)` in the last work-group, which NVIDIA predicated (as in bank_fix).",
    "transpose (1024, T=16)":
        "not explained. The model's 2 is the 16 x 17 tile's exact degree (two rows of the 16 x 16 "
        "work-group share a warp), and the H100 counts exactly 2.00 for the same kernel at 100 x "
        "64 and for tests/warp's 16 x 17 tile; at 1024 x 1024 it counted 70,169 wavefronts for "
        "32,768 shared loads (37,401 'bank conflicts' where the pattern has 32,768; 70,472 and "
        "37,704 in the run of 2026-11-25: the excess changes from run to run). The 32 x 33 "
        "tile of the study's transpose_tiled counts exactly 1.00 on the H100 at the same size; "
        "the solution's tile is dynamic shared memory, its row length the run-time "
        "`get_local_size(0) + 1`, and its work-groups hold 256 (T=16) or 1,024 (T=32) work-items.",
    "transpose (1024, T=32)":
        "not explained, as at T=16: 36,266 wavefronts for 32,768 shared loads (3,498 'bank "
        "conflicts'; 34,795 and 2,027 on 2026-11-25) where the 32 x 33 tile's column read is "
        "conflict-free: the model's 1.00, "
        "which the H100 counts exactly for tests/warp's 32 x 33 tile and for the study's "
        "transpose_tiled PAD=1 at 1024 x 1024.",
    "spill_fix (model case)":
        _CONSTANT + ": 8 a warp, 1,170 load requests against the H100's 650 (its x reads, which "
        "agree: 3,082 sectors, 4.74 a request). And " + _EXIT + ".",
    "fir_ring (model case)":
        _CONSTANT_AGAIN + " (8 a step: 5,850 load requests against 650). NVIDIA's compiler wrote the "
        "ring's 8 starting zeros as 2 16-byte stores and issued 5 local loads a step where the code "
        "reads the ring 8 times: 50 local loads and 12 local stores a warp, where the model counts the LLVM "
        "code's 80 and 18 (6,370 private requests against 4,030). Both see the ring in memory, "
        "which is what the spill_fix verdict asks. And " + _EXIT + ".",
    "fir_shift (64K channels)":
        "Oclgrind's LLVM did not unroll the loops that shift `h[]` (the model counts the same "
        "with and without `#pragma unroll 1`: 770,048 private requests), NVIDIA's did and kept "
        "the array in registers (no local-memory instruction): the model overstates the private "
        "traffic of an array whose indices become constants only once its loops are unrolled. "
        "And " + _CONSTANT_AGAIN + " (8 a step: 294,912 load requests against 32,768).",
    "fir_shift NO_UNROLL (64K channels)":
        "the private requests agree (770,048 against 757,760); the load sectors differ by the "
        "taps alone, " + _CONSTANT_AGAIN + " (294,912 load requests against 32,768).",
    "taps_constant":
        "the 16 taps are a `__constant` argument: " + _CONSTANT_AGAIN + " (16 a warp); NVIDIA "
        "reads them through the constant cache. The model's 2.94 is the figure of taps_global, "
        "whose taps are global loads on both sides.",
    "my_add_2d":
        "NVIDIA's compiler turned the `if`/`else` on the row's parity into two predicated stores "
        "(no branch: 0 branch targets), each with the 16 lanes of one parity: 65,536 store "
        "requests of 16 sectors. Oclgrind's LLVM merged the two sides into one store of a select: "
        "32,768 requests of 32 sectors. The same 1,048,576 store sectors on both, and no "
        "divergence on either.",
    "ring (private history)":
        "NVIDIA wrote the ring's 8 starting zeros as 2 16-byte stores: 42 local-memory "
        "instructions a warp against the model's 48; the loop's 20 loads and 20 stores agree "
        "exactly.",
}


# ------------------------------------------------------------------------------------------------
# The table and the doc's section

def _num(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and not x.is_integer():
        return f"{x:.2f}"
    return f"{int(x):,}"


def cell(side: dict) -> str:
    """A launch's figures in a few words: sectors per request of loads / stores, local-load
    wavefronts per request, divergent of all branches, private requests (those either side has)."""
    parts = []
    ld, st = side.get("global_load_sectors_per_request"), side.get("global_store_sectors_per_request")
    if ld is not None or st is not None:
        parts.append(f"{_num(ld)} / {_num(st)} sect")
    if side.get("local_load_wavefronts_per_request") is not None:
        parts.append(f"{_num(side['local_load_wavefronts_per_request'])} wf "
                     f"({_num(side['local_load_wavefronts'])})")
    if side.get("branches"):
        parts.append(f"div {_num(side.get('divergent_branches'))} of {_num(side['branches'])}")
    if side.get("private_requests"):
        parts.append(f"priv {_num(side['private_requests'])}")
    return "; ".join(parts) or "-"


def rows(result: dict) -> list[list[str]]:
    out = []
    for x in result["launches"]:
        if "skipped" in x:
            continue
        if "agree" not in x:
            err = next((r.get("error", "") for r in x.get("model_runs", [])), "")
            out.append([x["label"], "(did not run: " + err.splitlines()[-1][:60] + ")" if err
                        else "(did not run)", cell(x["nsight"]), "-"])
            continue
        bad = [SHORT[k] for k, v in x["agreement"].items() if not v["agree"]]
        agree = "yes" if not bad else "no: " + ", ".join(
            f"{SHORT[k]} x{x['agreement'][k]['ratio']:.2f}" if x["agreement"][k]["ratio"]
            else SHORT[k] for k in x["agreement"] if not x["agreement"][k]["agree"])
        label = x["label"]
        for extra in x["model_runs"][1:]:
            if "agree" in extra:
                label += f" (`{extra['build_options'].strip()}`, the verdict's build: " + \
                    ("agrees" if extra["agree"] else "differs") + ")"
        out.append([label, cell(x["model"]), cell(x["nsight"]), agree])
    return out


def table(result: dict) -> str:
    head = ["kernel", "model", "Nsight", "agree?"]
    body = rows(result)
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(4)]
    lines = [f"# {result['compared']} launches compared, {result['agree']} agree on every figure "
             f"(within {result['tolerance']:.0%}); {result['left_out']} left out, "
             f"{result['errors']} did not run; {result['seconds']:.0f} s"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in [head, *body]]
    return "\n".join(lines)


def render(result: dict) -> str:
    """docs/warp-model.md's section between BEGIN and END, from the JSON alone."""
    env, truth = result["environment"], result["truth"]
    judged = [x for x in result["launches"] if "agree" in x]
    per = {k: (sum(1 for x in judged if k in x["agreement"] and x["agreement"][k]["agree"]),
               sum(1 for x in judged if k in x["agreement"])) for k in JUDGED}
    left = [x for x in result["launches"] if x.get("skipped")]
    grind = re.search(r"Oclgrind [\d.]+", env["oclgrind"] or "")
    out = [BEGIN, "",
           f"{result['compared']} of the truth's {result['launches_in_truth']} launches, run on "
           f"Oclgrind with the model ({grind.group(0) if grind else env['oclgrind']}, plugin "
           f"`{env['plugin']}`) on "
           f"{result['date']} against Nsight Compute on the {truth['device']} "
           f"(`{truth['file']}`, {truth['date']}): **{result['agree']} agree on every figure** "
           f"(model / Nsight within {result['tolerance']:.0%}; a zero only with a zero). By "
           "figure, launches that agree of those where either side has it: "
           + ", ".join(f"{SHORT[k]} {a} of {n}" for k, (a, n) in per.items()) + ". "
           f"`tools/warp_vs_nsight.py` ran them in {result['seconds'] / 60:.0f} minutes on "
           f"{env['machine']} (`results/reference/warp-model-vs-nsight-h100.json`)"
           + (f"; {result['errors']} did not run" if result["errors"] else "") + ".", "",
           "Each cell: global sectors per request of loads / stores (`sect`), wavefronts per "
           "local-memory load request and their total in brackets (`wf`; per shared-load "
           "instruction on the GPU), divergent of all branches (`div`; the GPU counts SASS "
           "branch targets, so only the divergent count is compared), private-memory requests "
           "(`priv`; CUDA's local-memory instructions). `divergence_fix` and its starting kernel "
           "also run as their verdict builds them (`-cl-opt-disable`, which keeps every variable "
           "in private memory: there everything but the private requests is compared).", "",
           "| kernel | model | Nsight | agree? |", "|---|---|---|---|"]
    out += [f"| {' | '.join(c.replace('|', '&#124;') for c in r)} |" for r in rows(result)]
    differ = [x for x in judged if not x["agree"]]
    if differ:
        out += ["", "Where they differ, and why:", ""]
        for x in differ:
            bad = ", ".join(f"{SHORT[k]} {_num(v['model'])} against {_num(v['nsight'])}"
                            for k, v in x["agreement"].items() if not v["agree"])
            out.append(f"- **{x['label']}** ({bad}): {x.get('why') or '(not explained)'}")
    if left:
        out += ["", f"Not compared ({len(left)} launches):", ""]
        reasons: dict[str, list[str]] = {}
        for x in left:
            key = re.sub(r"\([^()]*\(?[^()]*\)?[^()]*\)", "(its model case)", x["skipped"], count=1) \
                if "representative size" in x["skipped"] else x["skipped"]
            reasons.setdefault(key, []).append(x["label"])
        for why, labels in reasons.items():
            out.append(f"- {', '.join(labels)}: {why}.")
    out += ["", END]
    return "\n".join(_wrap(line) for line in out)


def _wrap(line: str, width: int = 100) -> str:
    """A paragraph or list item wrapped as the doc's prose is; table rows and markers as they are."""
    if line.startswith(("|", "<!--")) or len(line) <= width:
        return line
    item = line.startswith("- ")
    return textwrap.fill(line, width, subsequent_indent="  " if item else "",
                         break_long_words=False, break_on_hyphens=False)


def annotate(result: dict) -> bool:
    """The launches' reasons (``why``) refreshed from WHY, the commentary kept in this file (the
    counts are not touched); whether any changed."""
    changed = result.get("how") != HOW
    result["how"] = HOW
    for x in result["launches"]:
        if "agree" in x:
            why = WHY.get(x["label"]) if not x["agree"] else None
            changed |= x.get("why") != why
            x["why"] = why
    return changed


def write_doc(result: dict, check: bool) -> int:
    text = DOC.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        print(f"{DOC.relative_to(ROOT)} has no markers {BEGIN!r} ... {END!r}")
        return 1
    new = text[:text.index(BEGIN)] + render(result) + text[text.index(END) + len(END):]
    if check:
        print(f"{DOC.relative_to(ROOT)} " + ("is up to date" if new == text else
                                             "differs from the JSON"))
        return 0 if new == text else 1
    DOC.write_text(new, encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", nargs="?", choices=["run", "child"], default="run")
    ap.add_argument("label", nargs="?")
    ap.add_argument("--only", help="the launches whose label matches (the JSON is not written)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--doc", action="store_true", help="rewrite docs/warp-model.md's section")
    ap.add_argument("--check", action="store_true", help="with --doc: exit 1 if it differs")
    ap.add_argument("--options", default="")
    ap.add_argument("--record", type=Path)
    a = ap.parse_args(argv)
    if a.mode == "child":
        return child(a.label, a.options, a.record)
    if a.doc:
        result = json.loads(a.out.read_text())
        if not a.check and annotate(result):
            a.out.write_text(json.dumps(result, indent=1) + "\n")
        return write_doc(result, a.check)
    result = compare(a.only)
    if not a.only:
        a.out.write_text(json.dumps(result, indent=1) + "\n")
        print(f"# wrote {a.out.relative_to(ROOT) if a.out.is_relative_to(ROOT) else a.out}")
    print(table(result))
    return 0 if result["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
