"""Kernels the checker's authors did not write: unusual correct ones under tests/right/EXERCISE/, and
wrong ones (the way learners err) under tests/wrong/EXERCISE/, each with a comment saying why it is
right or wrong. Every right kernel passes on every CPU implementation the suite runs on (a driver
that miscompiles fails a right kernel). Every wrong one fails: on every implementation where the
device's own run decides (DEVICE_DECIDES); the others, which Oclgrind's simulation or the warp model
fails whatever the device computed, with the first implementation only (their test holds them to
that). Where the first sentence of a diagnosis matters, the test says what it must name.

The wrong kernels that test_exercises.py already checks with their diagnoses are left to it."""

from __future__ import annotations

import pytest

from helpers.checking import run_check

from .conftest import TESTS
from .contradictions import contradictions
from .test_exercises import WRONG_FLOAT_COPY, WRONG_KERNELS

RIGHT = sorted(f"{p.parent.name}/{p.stem}" for p in (TESTS / "right").glob("*/*.cl"))
KNOWN = set(WRONG_KERNELS) | {f"float_copy/{k}" for k in WRONG_FLOAT_COPY}
WRONG = sorted(f"{p.parent.name}/{p.stem}" for p in (TESTS / "wrong").glob("*/*.cl")
               if p.parent.name != "block_sum" and f"{p.parent.name}/{p.stem}" not in KNOWN)

# the wrong kernels whose verdict rests on the device's own run (Oclgrind passes them, and the device
# computes them wrong, or cannot build them): run on every CPU implementation. Every other wrong
# kernel is failed by Oclgrind's simulation, or by the warp model where the device computed right;
# neither depends on the device, so they run with the first implementation only, and the test fails
# any that stops being one (measured with Intel's runtime and PoCL 3.0, 2026-11-26)
DEVICE_DECIDES = {"float_copy/ushort_index", "parallel_sum/gid_guarded_scratch",
                  "parallel_sum/half_is_a_type", "to_half/direct_store",
                  # wrong only in work-groups of one work-item, where it reads a halo slot nobody
                  # wrote: Oclgrind does not follow that value through fmin, so the check's own
                  # look at local memory (on the device) fails it
                  "erosion_1d_local/halo_else_if"}

# kernel -> fragments the first line of the diagnosis must hold (alternatives in tuples)
FIRST_LINE = {
    # a tile written and read once, the work done from global memory: the counts of reads show it
    **{f"{n}/tile_decoy": ["its tile carries few of its reads"]
       for n in ("erosion_1d_local", "transpose", "bank_fix", "rotate_in_group", "sgemm_tiled")},
    # the mirrored block read from global memory, down a column: the warp model shows it
    "skewed_tile/tile_decoy": ["not coalesced"],
    # conflict-free at the representative 16 x 16 tile, 32-way at 32 x 32: the second case shows it
    "transpose/pad_only_small_tiles": ["bank conflicts", "local 32x32"],
    # Oclgrind's uninitialized-value plugin sees it in the unoptimized build (the int4 that
    # crashed it in the optimized one is gone); else the check's own look at local memory finds
    # the slots nobody wrote; the driver is not blamed
    "parallel_sum/gid_guarded_scratch": [("reads local memory that no work-item wrote",
                                          "a value that was never initialized reached a result")],
    # right at T <= 16, outside the fixed tile at the device's widest T
    # (on the H100 the driver allows this kernel 256 work-items: Oclgrind runs T = 32)
    "transpose/fixed_tile_16": [("write outside a buffer", "wrong", "were not written",
                                 "crashed", "the contract allows larger ones")],
    "parallel_sum/fixed_local_256": [("write outside a buffer", "wrong", "crashed",
                                      "the contract allows larger ones",
                                      "reads or writes outside its buffers")],
    "erosion_1d_local/global_only": ["never reads or writes local memory",
                                     "this exercise is about the tile"],
    "sgemm_tiled/no_tiles": ["never reads or writes local memory"],
    # the line-precise finding leads
    "transpose/return_before_barrier": ["return_before_barrier.cl:", "divergent barrier"],
    "erosion_1d_local/early_return": [("divergent barrier", "data race")],
    "mat_vec_mul/barrier_in_branch": ["divergent barrier"],
    "mat_vec_mul/tree_per_chunk": ["divergent barrier"],
    "parallel_sum/half_is_a_type": ["does not compile"],
    "spill_fix/shift_after_load": ["likely mistake: the new sample was stored before the shift"],
    "spill_fix/history_uninitialised": ["never initialized"],
    "bank_fix/no_group_offset": ["likely mistake: every work-group summed the first"],
    "bank_fix/early_return": ["divergent barrier"],
    # histogram: Oclgrind's finding leads, or (where the device counted right all the same) the
    # sentence that the values were right by luck, which Oclgrind's lines then explain
    "histogram/nonatomic_local_increment": [("data race", "only by luck")],
    "histogram/nonatomic_global_merge": [("data race", "only by luck")],
    "histogram/local_never_zeroed": ["never initialized"],
    # the newest exercises: each wrong kernel's first line names its mistake
    "column_sums/group_major": ["not coalesced"],
    "leaky_relu/ternary": ["its warps split"],
    "group_max/from_zero": ["likely mistake: the maximums that should be negative"],
    "group_max/flt_max_start": ["likely mistake: the work-groups that cover no element"],
    "count_matches/stored_over": [("data race", "only by luck")],
    # skewed_tile: the skew's mistakes, each by what it does (Oclgrind's finding on the tile, the
    # warp model's count)
    "skewed_tile/skew_store_only": [("never initialized", "no work-item wrote")],
    **{f"skewed_tile/{k}": [f"{k}.cl:", ("write outside a buffer", "read outside a buffer")]
       for k in ("padded_rows", "mod_32")},
    "skewed_tile/skew_by_column": ["reads of local memory have bank conflicts"],
    "skewed_tile/skew_only_at_32": ["reads of local memory have bank conflicts"],
    "skewed_tile/barrier_removed": ["barrier_removed.cl:", "data race"],
    "skewed_tile/own_block": ["never initialized"],
    # dot_chains: each way of losing the four chains by name; the last step's reads past n by
    # Oclgrind; the right sums read a group apart by the warp model
    "dot_chains/one_chain": ["likely mistake: only the first of each work-item's four"],
    **{f"dot_chains/{k}": ["likely mistake: partial[m] holds the sum over m, m + 4G"]
       for k in ("interleaved_chains", "chain_major_layout")},
    "dot_chains/stride_g": ["likely mistake: the chains step by G"],
    "dot_chains/last_step_dropped": ["likely mistake: the elements of the last, incomplete step"],
    "dot_chains/unguarded_last_step": [("outside its buffers", "read outside a buffer")],
    "dot_chains/empty_chains_unwritten": ["likely mistake: the partial sums of the chains with no"],
    "dot_chains/early_return": ["likely mistake: the work-items past the data"],
    "dot_chains/group_major_index": ["global memory reads are not coalesced"],
    # saxpy4: the tail's mistakes by name, the float4s read past the end by Oclgrind
    "saxpy4/tail_dropped": ["likely mistake: only whole float4s were done"],
    "saxpy4/tail_first_only": ["likely mistake: of the tail"],
    "saxpy4/one_float_each": ["likely mistake: only the first"],
    "saxpy4/offset_in_floats": [("outside a buffer", "outside its buffers")],
    "saxpy4/whole_float4_past_n": [("outside a buffer", "outside its buffers")],
    # written blind by a helper who had not read the checker
    "saxpy4/writes_x": ["changed the input x"],
    "saxpy4/uint_underflow": [("outside a buffer", "outside its buffers")],
    "histogram/zero_lid_unguarded": [("write outside a buffer", "outside its buffers")],
    "histogram/barrier_in_divergent_loop": [("divergent barrier", "data race", "only by luck")],
    "histogram/cmpxchg_plain_seed": [("data race", "only by luck")],
    "histogram/local_size_stride": ["likely mistake: elements were counted several times"],
    "histogram/merge_without_loop": ["likely mistake: only the first"],
    # right values, the technique missing: the warp model's counter leads
    "strided_fix/pairs_per_step": ["global memory reads are not coalesced", "8.0 sectors"],
    "strided_fix/chunk_per_item": ["global memory reads are not coalesced", "32.0 sectors"],
    "transpose/unpadded_tile": ["reads of local memory have bank conflicts"],
    "bank_fix/tile_without_padding": [("reads of local memory have bank conflicts", "not coalesced")],
    "divergence_fix/parity_branch_in_loop": ["its warps split"],
    "spill_fix/window_array_loop": ["keeps values in private memory"],
    "divergence_fix/table_squares_first": ["got NaN"],
    # the capstone's rungs (notebook 17): the mistakes of the maximum by name, the trees' races
    # and barriers by Oclgrind, the missing technique by the warp model
    **{f"{n}/no_max": ["likely mistake: exactly the rows whose values reach about 100"]
       for n in ("softmax_rows", "softmax_group")},
    "softmax_rows/max_from_zero": ["likely mistake: exactly the rows whose values all lie near -150"],
    "softmax_rows/guard_off_by_one": [("write outside a buffer", "read outside a buffer",
                                        "outside its buffers")],
    "softmax_group/stride_global_size": ["likely mistake: only the first"],
    "softmax_group/chunk_per_item": ["not coalesced"],
    "softmax_group/no_reuse_barrier": [("data race", "only by luck")],
    "softmax_group/no_first_barrier": [("data race", "only by luck")],
    "softmax_group/barrier_in_tree_if": ["divergent barrier"],
    "softmax_group/early_return": ["divergent barrier"],
    "softmax_online/three_passes": ["reads x 3.0 times for each element of y"],
    "softmax_online/no_rescale": ["likely mistake: each work-item's running sum was not rescaled"],
    "softmax_online/merge_adds_sums": ["likely mistake: the tree added the work-items' sums"],
    "softmax_online/no_barrier_in_tree": [("data race", "only by luck")],
    "softmax_online/empty_pairs_nan": ["got NaN"],
    # issue 52 point 3: what Oclgrind saw leads, and nothing after it contradicts it (NEVER)
    "rotate_in_group/no_barrier": ["no_barrier.cl:", "data race"],
    "reverse/from_n": ["from_n.cl:7:18: read outside a buffer"],
    "matrix_add/unguarded": ["unguarded.cl:", "outside a buffer"],
}

# kernel -> fragments the diagnosis must not hold anywhere (beside the rules every wrong kernel's
# verdict is held to: tests/contradictions.py)
NEVER = {
    # 2-D, as many work-items as elements: no "guard the store"
    "query_work_space/row_stride_local": ["guard the store"],
    "parallel_sum/gid_guarded_scratch": ["miscompiled"],
    # a missing barrier: the results are a race's, no shift is read in them
    "rotate_in_group/no_barrier": ["off by", "holds the value expected at"],
    # in[n - i]: out is shifted by -1, but no "i - 1" is in the kernel; Oclgrind's line says where
    "reverse/from_n": ["off by", "where i is meant"],
    # a 2-D exercise: its own guard, in both dimensions
    "matrix_add/unguarded": ["i < n"],
}
# ... and that the kernels test_exercises checks must not hold either
NEVER_KNOWN = {
    # a transposed store is no shift (issue 52: "off by 2" beside it)
    "query_work_space/transposed": ["off by", "holds the value expected at"],
}


def _first_line(message: str) -> str:
    """The diagnosis's first sentence (a heading line ending in a colon, Oclgrind's or a case's,
    taken with the line it introduces)."""
    lines = message.splitlines()
    if len(lines) < 2:
        return lines[0]
    first = lines[1].strip()
    return first + " " + lines[2].strip() if first.endswith(":") and len(lines) > 2 else first


@pytest.mark.parametrize("kernel", RIGHT)
def test_an_unusual_right_kernel_passes(kernel, oclgrind_present):
    name = kernel.split("/")[0]
    # a right kernel has no endless loop to catch: the limit leaves room for PoCL 3.0 compiling
    # a work-group of 4096 cold under load (16 s alone on an idle 2-core EPYC; CI stopped
    # mat_vec_mul/unrolled_tree at 20 s)
    report = run_check(name, TESTS / "right" / f"{kernel}.cl", run_timeout=90)
    assert report.passed, report.message
    # the device decided alone only where Oclgrind has a gap, and then it says so
    assert report.oclgrind_available or "gap in Oclgrind" in report.message


@pytest.mark.parametrize("kernel", [k if k in DEVICE_DECIDES else pytest.param(k, marks=pytest.mark.once)
                                    for k in WRONG])
def test_an_unseen_wrong_kernel_fails_and_its_first_line_names_the_mistake(kernel,
                                                                           oclgrind_present):
    name = kernel.split("/")[0]
    report = run_check(name, TESTS / "wrong" / f"{kernel}.cl", run_timeout=20)
    assert not report.passed, report.message
    if kernel not in DEVICE_DECIDES:     # run once: its verdict must not rest on the device
        assert not_the_devices_verdict(report), (
            f"{kernel}: Oclgrind passed it and the device computed it wrong: the verdict is the "
            f"device's, add it to DEVICE_DECIDES\n{report.message}")
    assert "Traceback" not in report.message and "Warning" not in report.message, report.message
    first = _first_line(report.message)
    for fragment in FIRST_LINE.get(kernel, []):
        either = fragment if isinstance(fragment, tuple) else (fragment,)
        assert any(x in first for x in either), f"{fragment!r} not in the first line:\n{first}"
    for fragment in NEVER.get(kernel, []):
        assert fragment not in report.message, report.message
    assert not contradictions(name, report), (contradictions(name, report), report.message)


@pytest.mark.once      # what the verdict says beside its finding: the same words on any device
@pytest.mark.parametrize("kernel", sorted(NEVER_KNOWN))
def test_a_known_wrong_kernels_verdict_does_not_contradict_itself(kernel, oclgrind_present):
    """The wrong kernels test_exercises checks for what their verdicts must say, held to what
    they must not: the rules of tests/contradictions.py, and their own fragments."""
    name = kernel.split("/")[0]
    report = run_check(name, TESTS / "wrong" / f"{kernel}.cl", run_timeout=20)
    assert not report.passed, report.message
    assert not contradictions(name, report), (contradictions(name, report), report.message)
    for fragment in NEVER_KNOWN[kernel]:
        assert fragment not in report.message, report.message
    assert "PLEASE" not in _first_line(report.message), report.message


def not_the_devices_verdict(report) -> bool:
    """A failing report that any device would give: Oclgrind's pass failed it (wrong values, a
    finding, a crash or a hang; not a gap of Oclgrind's, nor a build only Oclgrind failed), or the
    device computed it right (the warp model or Oclgrind's counts failed it)."""
    dp, op = report.device_pass, report.oclgrind_pass
    oclgrind_failed = (op is not None and op.ending.build_error is None and not op.gaps
                       and (bool(op.failing()) or bool(op.findings)
                            or op.ending.crashed_in is not None or op.ending.hung_in is not None))
    return oclgrind_failed or (dp is not None and dp.all_ok())


def test_the_premise_of_running_a_wrong_kernel_once_can_fail(oclgrind_present):
    """The kernels kept for every implementation are the device's verdicts: the premise says so."""
    kernel = "float_copy/ushort_index"
    report = run_check("float_copy", TESTS / "wrong" / f"{kernel}.cl", run_timeout=20)
    assert not report.passed and not not_the_devices_verdict(report), report.message


@pytest.mark.parametrize("seed", range(12))
def test_a_slot_nobody_wrote_fails_whatever_the_inputs(seed, oclgrind_present):
    """A halo slot read but never written, whose value reaches the result through fmin: the
    device's garbage and Oclgrind's zeros gave the right minimum for about 1 seed in 10 (the
    window's minimum below them), and the kernel passed; Oclgrind's uninitialized-value plugin
    does not follow a value through a built-in. The check's own look at local memory fails it
    for every seed."""
    report = run_check("erosion_1d_local",
                       kernel=TESTS / "wrong" / "erosion_1d_local" / "halo_else_if.cl", seed=seed)
    assert not report.passed, report.message
    assert "reads local memory that no work-item wrote" in report.message, report.message


def test_every_wrong_and_right_kernel_says_why_in_its_first_comment():
    for kind in ("right", "wrong"):
        for path in (TESTS / kind).glob("*/*.cl"):
            if path.parent.name == "block_sum" or kind == "wrong" and \
                    f"{path.parent.name}/{path.stem}" in KNOWN:
                continue
            head = path.read_text()[:400]
            assert f"{kind.upper()}:" in head, f"{path}: no {kind.upper()}: comment at the top"


# Oclgrind's findings that lead these verdicts: a divergent barrier, an uninitialized value, a race,
# a wrong result only Oclgrind's cases show, and two right kernels
SHARED_OUT = ["mat_vec_mul/barrier_in_branch", "spill_fix/history_uninitialised",
              "transpose/return_before_barrier", "parallel_sum/no_barrier",
              "sgemm_tiled/a_transposed", "right:erosion_1d_local", "right:sgemm_tiled",
              # right, and a gap of Oclgrind's uninitialized-value plugin (freeze): its shares'
              # first runs went wrong, and a correct kernel failed with no reason given
              "right/transpose/diagonal_general"]


@pytest.mark.once      # how Oclgrind's cases are dealt to its workers: not the device's affair
@pytest.mark.parametrize("kernel", SHARED_OUT)
def test_oclgrind_cases_dealt_to_three_workers_give_the_verdict_of_one(kernel, oclgrind_present):
    """A host of many cores deals Oclgrind's small cases (and the widest) to several workers side
    by side (CheckOptions.oclgrind_workers): the same verdict and first line from two and three
    workers as from one."""
    from helpers.paths import ROOT
    right = kernel.startswith("right")
    name = kernel.removeprefix("right/").split("/")[0].split(":")[-1]
    path = ROOT / "solutions" / f"{name}.cl" if kernel.startswith("right:") \
        else TESTS / f"{kernel}.cl" if right else TESTS / "wrong" / f"{kernel}.cl"
    one, two, three = (run_check(name, path, seed=7, run_timeout=20, oclgrind_workers=w)
                       for w in (1, 2, 3))
    assert one.passed == two.passed == three.passed == right, (two.message, three.message)
    if not one.passed:   # up to the details of the one report shown: Oclgrind's threads
        # simulate the work-groups in no fixed order, and its reports grow with the cases run
        assert _first_line(one.message).split(" (")[0] == \
            _first_line(two.message).split(" (")[0] == _first_line(three.message).split(" (")[0]
    else:   # the same cases ran on Oclgrind: the widest beside the small, not after
        assert sorted(c.key() for c in one.oclgrind_pass.cases) == \
            sorted(c.key() for c in two.oclgrind_pass.cases) == \
            sorted(c.key() for c in three.oclgrind_pass.cases)


def test_a_hang_after_an_overflow_leads_with_the_overflow(oclgrind_present):
    """CI's Intel run hung (did not crash) in fixed_tile_16's 64x64 case, and the diagnosis read
    "an endless loop?": the short Oclgrind run after a hang had only the first small cases, where a
    16x16 tile is wide enough. The widest case, where Oclgrind sees the overflow, now runs too."""
    report = run_check("transpose", TESTS / "data" / "hang_after_tile_overflow.cl", run_timeout=3)
    assert not report.passed
    first = _first_line(report.message)
    assert "write outside a buffer" in first, report.message
    assert "did not finish" in report.message and "endless loop?" not in report.message, \
        report.message
