"""Every exercise of the registry: its files exist, its solution passes, its skeleton compiles and
fails, and the wrong kernels under tests/wrong/NAME/ are rejected with the right message."""

from __future__ import annotations

import json

import pytest

from helpers.checking import run_check
from helpers.exercises import exercises, get
from helpers.exercises.cells import (
    check_cell,
    contract_tables,
    hint_cell,
    hint_span,
    hints_markdown,
    kernel_cell,
    source,
    table_span,
)
from helpers.kernels import KERNELS, SOLUTIONS

from .conftest import ROOT, TEST_REGISTRY, TESTS
from .contradictions import contradictions
from .shipped import STAGE, committed, shipped_skeleton, tracked

EXERCISES = sorted(ex.name for ex in exercises())


@pytest.mark.parametrize("name", EXERCISES)
def test_exercise_has_skeleton_solution_notebook_and_cases(name):
    ex = get(name)
    assert (KERNELS / f"{name}.cl").is_file() and (SOLUTIONS / f"{name}.cl").is_file()
    assert (ROOT / "notebooks" / f"{ex.teaching.notebook}.ipynb").is_file()
    assert any(c.small for c in ex.cases), "Oclgrind needs at least one small case"
    # a range that does not match the data (rounded up past it, or fewer work-items than
    # elements) in some case, except where the contract makes the range the data; and several
    # work-group shapes
    range_is_the_data = {
        "query_work_space": "each work-item writes its own slot: the output is the range",
        "block_reverse": "the global size is the data's length, a multiple of the local size",
        "rotate_in_group": "the global size is the data's length, a multiple of the local size",
    }
    out = ex.outputs()[0].length
    if name in range_is_the_data:   # and the exemption says what the record does
        assert all(c.work_items == out(c) for c in ex.cases), range_is_the_data[name]
    else:
        # the data is the first output, unless that holds one element per work-item in every
        # case (a partial sum per work-item): then the longest input
        inputs = [b.length for b in ex.buffers() if b.role == "in"]
        per_item = all(out(c) == c.work_items for c in ex.cases)
        assert not per_item or inputs, "the output is the range and nothing else is data"
        data = (lambda c: max(f(c) for f in inputs)) if per_item else out
        assert any(c.work_items != data(c) for c in ex.cases), \
            "every case's range matches the data: round one up past it, or give fewer work-items"
    assert len({c.local_size for c in ex.cases}) >= 3
    assert ex.teaching.hints


@pytest.mark.parametrize("name", EXERCISES)
def test_hints_and_the_mistakes_that_name_them(name):
    """Two to four hints; every mistake and finding names one of them or none (0), and an exercise
    with mistake rules names a hint in at least one, which its verdict then points to."""
    ex = get(name)
    assert 2 <= len(ex.teaching.hints) <= 4, ex.teaching.hints
    named = {m.name: m.hint for m in ex.teaching.mistakes}
    named.update({f"{f.kind} ({f.memory}): {f.message}": f.hint for f in ex.teaching.finding_hints})
    for what, number in named.items():
        hints = len(ex.teaching.hints)
        assert 0 <= number <= hints, f"{what} names hint {number} of {hints}"
    if named:
        assert any(named.values()), f"no mistake or finding of {name} names a hint"


@pytest.mark.parametrize("name", EXERCISES)
def test_the_notebooks_hint_cell_is_made_from_the_registry(name):
    """The hint cell before the exercise's cell holds exactly the registry's hints and where the
    solution is (prose may stand before and after them), and the exercise's cell is %%kernel NAME
    over the skeleton: tools/sync_exercise_cells.py writes both."""
    ex = get(name)
    nb = json.loads(committed(f"notebooks/{ex.teaching.notebook}.ipynb"))
    at = hint_cell(nb["cells"], name)
    assert at is not None, f"{ex.teaching.notebook} has no hint cell before the check of {name}"
    text = source(nb["cells"][at])
    start, end = hint_span(text)
    assert text[start:end] == hints_markdown(ex), \
        f"{ex.teaching.notebook}, cell {at}: run python tools/sync_exercise_cells.py" + STAGE
    assert "```" not in text[start:end], "a notebook holds no copy of a solution"
    # the exercise's code cell: %%kernel NAME over the skeleton git holds (both routes, one cell)
    code = check_cell(nb["cells"], name)
    assert source(nb["cells"][code]) == kernel_cell(ex, committed(f"kernels/{name}.cl").decode()), \
        f"{ex.teaching.notebook}, cell {code}: run python tools/sync_exercise_cells.py" + STAGE


@pytest.mark.once
def test_every_lesson_counter_an_exercise_names_is_one_the_warp_model_shows():
    """An exercise names the counter its lesson shows beside the time (``technique_shown``): a
    name the lessons know, on an exercise that starts from a slow kernel; the five technique
    lessons each name one (the four whose technique the check judges, and the histogram's)."""
    from helpers.checking.counters import SHOWN, lesson_exercises
    for ex in exercises():
        if ex.teaching.shown:
            assert ex.teaching.shown in SHOWN, (ex.name, ex.teaching.shown)
            assert ex.performance is not None and ex.performance.given, ex.name
            assert ex.technique is not None or ex.name == "histogram", ex.name
    assert sorted(lesson_exercises()) == ["bank_fix", "divergence_fix", "histogram", "spill_fix",
                                          "strided_fix"]


@pytest.mark.once
def test_a_name_registered_by_two_files_is_an_error():
    """Issue 57 point 3: register() replaced a record silently. The same file may register a
    name again (a registry file loaded by each check); another file may not."""
    from dataclasses import replace

    from helpers.exercises import model
    with pytest.raises(ValueError, match="registered twice"):
        model.register(replace(get("float_copy")), origin="somewhere/else.py")
    assert get("float_copy").name == "float_copy"
    before, origins = dict(model.REGISTRY), dict(model._ORIGIN)
    assert not any(":" in name for name in model.REGISTRY)      # study kernels: a registry apart
    assert all(ex.study_file for ex in model.STUDY_KERNELS.values()) and model.STUDY_KERNELS
    with pytest.raises(KeyError) as said:
        get("no_such_exercise")
    assert not any(f"{name}," in str(said.value) or f"{name}." in str(said.value)
                   for name in model.STUDY_KERNELS)  # a learner is never offered a study kernel
    try:
        model.load_registry_file(TEST_REGISTRY)
        model.load_registry_file(TEST_REGISTRY)           # again: the same file, no error
    finally:                                # the tests' exercises out again, for the next tests
        model.REGISTRY.clear()
        model.REGISTRY.update(before)
        model._ORIGIN.clear()
        model._ORIGIN.update(origins)


@pytest.mark.once
def test_a_contract_row_reads_the_same_whatever_exercises_surround_it():
    """Issue 57 point 5: a row once said "same as `clamp_unit`", so that adding an exercise before
    leaky_relu changed leaky_relu's public row. Each row is its own exercise's alone."""
    from helpers.exercises.cells import contract_table
    course = exercises()
    forward = contract_table(course).splitlines()[2:]
    backward = contract_table(list(reversed(course))).splitlines()[2:]
    alone = [contract_table([ex]).splitlines()[2] for ex in course]
    assert forward == alone == list(reversed(backward))
    assert not any("same as" in row for row in forward)


@pytest.mark.once
@pytest.mark.parametrize("path", ["docs/design.md", "docs/checks.md"])
def test_the_contract_tables_are_made_from_the_records(path):
    """docs/design.md's contract table (every exercise) and docs/checks.md's (the performance
    exercises) are what tools/sync_exercise_cells.py renders from the records: each row the
    exercise's name, its parameters and its ``contract``."""
    assert all(ex.contract for ex in exercises()), "an exercise without a contract"
    text = committed(path).decode()
    span = table_span(text)
    assert span is not None, f"{path} has no contract-table markers"
    assert text[span[0]:span[1]].strip() == contract_tables()[path], \
        f"{path}: run python tools/sync_exercise_cells.py" + STAGE


@pytest.mark.parametrize("name", EXERCISES)
def test_solution_passes(name, oclgrind_present):
    report = run_check(name, solutions=True)
    assert report.passed, report.message
    assert report.oclgrind_pass is not None and report.oclgrind_pass.all_ok()


@pytest.mark.parametrize("name", EXERCISES)
def test_skeleton_compiles_and_fails(name, oclgrind_present):
    report = run_check(name, kernel=shipped_skeleton(name))
    assert not report.passed
    assert report.device_pass.ending.built, report.message  # fails by what it computes, not by a typo


# file under tests/wrong/float_copy -> fragments the diagnosis must contain
WRONG_FLOAT_COPY = {
    # PoCL lets the write reach the guard band; NVIDIA drops writes outside a sub-buffer
    # on PoCL the write past the end may also corrupt the process, which then crashes or hangs
    "no_guard": [("wrote past the end of dst", "writes outside its buffers, which this device",
                  "can corrupt the memory of the process running the kernel"),
                 "no_guard.cl:5:12: write outside a buffer"],
    "local_id": ["likely mistake: only the first 32 elements were written",
                 "get_local_id(0) counts inside a work-group"],
    "group_id": ["likely mistake", "get_group_id(0) numbers work-groups"],
    "off_by_one_past": [("one element past the end of dst", "writes outside its buffers"),
                        "off_by_one_past.cl:6:16: write outside a buffer"],
    "off_by_one_short": ["the last element", "was not written", "i < n - 1 where i < n is meant"],
    "read_past_end": ["dst[i] holds the value expected at dst[i + 1]",
                      "read_past_end.cl:6:18: read outside a buffer"],
    # a CPU device dies of it; a GPU driver reports an error instead
    "crash": [("crashed the process running it (SIGSEGV)", "failed while running on the device"),
              "crash.cl:5:26: write outside a buffer"],
    "endless": ["did not finish", "within 3 s and was stopped: an endless loop?",
                "(inputs from seed "],
    # a hang after a write past the end: told as what such a write can do, the loop still named
    "endless_past_end": ["endless_past_end.cl:9:20: write outside a buffer", "did not finish",
                         "can corrupt the memory of the process running the kernel",
                         "look for a loop that never ends", "(inputs from seed "],
    # a megabyte of printf: stopped at OUTPUT_LIMIT, its last lines shown, whatever the device
    "printf_flood": ["printed more than 1 MiB and was stopped", "its last lines:",
                     "copies"],
    "compile_error": ["does not compile",
                      "compile_error.cl:6:22: error: use of undeclared identifier 'index'"],
    "wrong_name": ["has no kernel function named float_copy (kernels found: floatCopy)",
                   "__kernel void float_copy(__global const float *src"],
    "writes_input": ["changed the input src"],
    # a loop of wild writes: Oclgrind is stopped once it has reported (see the test below)
    "wild_loop": ["wild_loop.cl:7:24: write outside a buffer"],
}


@pytest.mark.parametrize("wrong", sorted(WRONG_FLOAT_COPY))
def test_wrong_float_copy_is_rejected_with_its_diagnosis(wrong, oclgrind_present):
    # the endless kernels are stopped after 3 s; the flood at 1 MiB of output, which a loaded
    # machine's printf may take longer than 3 s to reach (so it gets the learner's 30 s)
    report = run_check("float_copy", TESTS / "wrong" / "float_copy" / f"{wrong}.cl",
                       run_timeout=30 if wrong == "printf_flood" else 3)
    assert not report.passed
    for fragment in WRONG_FLOAT_COPY[wrong]:
        either = fragment if isinstance(fragment, tuple) else (fragment,)
        assert any(x in report.message for x in either), f"{fragment!r} not in:\n{report.message}"
    assert "Traceback" not in report.message
    assert not contradictions("float_copy", report), report.message


def test_oclgrind_stops_at_its_first_reports(oclgrind_present):
    """Oclgrind reports the wild loop's first invalid writes at once, then would simulate all 4096
    iterations of every work-item for minutes: the check stops it once it has reported."""
    report = run_check("float_copy", TESTS / "wrong" / "float_copy" / "wild_loop.cl",
                       run_timeout=3)
    op = report.oclgrind_pass
    assert op is not None and op.ending.cut_short and op.findings, report.message
    assert not report.passed and "write outside a buffer" in report.message



def test_oclgrind_stops_after_the_case_that_reported(oclgrind_present):
    """A missing barrier races in every case; Oclgrind reports it in the first and would spend a
    fifth of a second on the next (4096 work-items): the pass ends with the case that reported."""
    report = run_check("parallel_sum", TESTS / "wrong" / "parallel_sum" / "no_barrier.cl")
    op = report.oclgrind_pass
    assert op is not None and op.ending.cut_short, report.message
    assert 0 in op.results and len(op.results) < len(op.cases)
    assert "data race" in report.message and "barrier is missing" in report.message

# exercise/file under tests/wrong -> fragments the diagnosis must contain (alternatives in tuples)
WRONG_KERNELS = {
    # x read before the guard: the likely mistake names the buffer on Oclgrind's line, not coef
    "horner/x_loaded_before_guard": ["x_loaded_before_guard.cl:9:21: read outside a buffer",
                                     "likely mistake: x was read past its end"],
    "sum_ints/local_id": ["likely mistake: only the first 32 elements were written",
                          "get_local_id(0) counts inside a work-group"],
    "sum_ints_multi/one_each": ["likely mistake: only the first 32 elements were written, one per "
                                "work-item", "each work-item must loop over several"],
    "sum_ints_multi/leftover": ["likely mistake: the last 3 elements were not written: n = 1048579 "
                                "is not a multiple of the global size 8192",
                                "Loop while the index is below n"],
    "sum_ints_multi/chunk_overrun": [("wrote past the end of c", "writes outside its buffers"),
                                     "chunk_overrun.cl:8:22: write outside a buffer"],
    "query_work_space/local_id": ["likely mistake: you returned get_local_id(0) where "
                                  "get_global_id(0) was asked (query number 0)",
                                  "(row 0, column 4): expected 4, got 0"],
    "query_work_space/transposed": ["likely mistake: the values are right but stored transposed"],
    "erosion_1d/borders_skipped": ["likely mistake: the elements within 5 of each end were not written",
                                   "must be clipped to the data"],
    "erosion_1d/unclipped": ["unclipped.cl:10:21: read outside a buffer",
                             "likely mistake: the window is not clipped at the borders"],
    "erosion_1d/window_short": ["likely mistake: the window stops one element short"],
    "erosion_1d_local/no_barrier": ["no_barrier.cl:19:17: data race",
                                    "likely mistake: barrier missing"],
    "erosion_1d_local/no_halo": ["likely mistake: every wrong element lies within",
                                 "the halo (the radius elements on each side of the group's block) "
                                 "was not loaded"],
    "erosion_1d_local/barrier_in_branch": ["barrier_in_branch.cl:14:9: divergent barrier",
                                           "likely mistake: the barrier is inside a branch"],
    "erosion_2d/frame_skipped": ["likely mistake: the pixels within", "of the image's edge were "
                                 "not written"],
    "erosion_2d/rows_only": ["likely mistake: each pixel holds the minimum over its row's window"],
    "matrix_vector/once": ["likely mistake: a was updated once: the update must be applied"],
    "matrix_vector/b_by_row": ["likely mistake: b was indexed by the row",
                               "b_by_row.cl:17:21: read outside a buffer"],
    "parallel_sum/one_each": ["likely mistake: only the first 256 elements were added",
                              "the sum of the partial sums is"],
    "parallel_sum/no_barrier": ["no_barrier.cl:12:18: data race",
                                "likely mistake: a barrier is missing"],
    "parallel_sum/barrier_in_branch": ["barrier_in_branch.cl:18:13: divergent barrier",
                                       "likely mistake: a barrier sits inside a branch"],
    "mat_vec_mul/one_row_per_group": ["likely mistake: only the first 3 rows were computed"],
    # the case named is the one with the smallest share of wrong rows, which the seed decides:
    # any case whose rows are wider than its work-group (a fresh clone's run named local 64)
    "mat_vec_mul/no_stride": [tuple(f"likely mistake: only the first {n} columns were used"
                                    for n in (256, 128, 64, 32, 16, 8, 2))],
    "mat_vec_mul/no_reduction": ["likely mistake: w holds work-item 0's share of each row only"],
    "mat_vec_mul/no_barrier": ["no_barrier.cl:17:22: data race",
                               "likely mistake: a barrier is missing"],
    "transpose/no_barrier": ["no_barrier.cl:12:33: data race",
                             "likely mistake: a barrier(CLK_LOCAL_MEM_FENCE) is missing"],
    "transpose/copied": ["likely mistake: out holds a copy of in, not its transpose"],
    "transpose/early_return": ["early_return.cl:11:5: divergent barrier",
                               "some work-items skip the barrier"],
    "strided_fix/one_each": ["likely mistake: only the first 32 elements were updated, one per "
                             "work-item"],
    "divergence_fix/even_only": ["likely mistake: every element went through the even step"],
    "spill_fix/taps_reversed": ["likely mistake: the taps are applied in reverse"],
    "spill_fix/newest_first": ["likely mistake: the samples were moved newest first"],
    "bank_fix/last_field": ["likely mistake: each sum leaves out the last of the record's 32"],
    # Oclgrind's first line is the race here, the tile read before it was written on the H100
    # (results/history/pytest-lessons-nvidia-h100.txt); either way the barrier is named
    "bank_fix/no_barrier": [("no_barrier.cl:16:45: data race", "no_barrier.cl:22:27: a value "
                             "that was never initialized"),
                            ("likely mistake: a barrier is missing between filling the tile",
                             "the barrier between filling the tile and reading it is missing")],
    "sgemm_tiled/no_barrier_before": ["no_barrier_before.cl:15:20: data race",
                                      "likely mistake: a barrier is missing: one after filling "
                                      "the tiles"],
    "sgemm_tiled/no_barrier_after": ["no_barrier_after.cl:12:29: data race",
                                     "likely mistake: a barrier is missing"],
    "sgemm_tiled/last_tile_dropped": ["likely mistake: the last ", "values along k were left "
                                      "out: k = ", "is not a multiple of the tile width"],
    "sgemm_tiled/tiles_transposed": ["likely mistake: both tiles are read transposed"],
    "sgemm_tiled/a_transposed": ["likely mistake: a's tile is read transposed"],
    "sgemm_tiled/early_return": ["early_return.cl:15:9: divergent barrier",
                                 "likely mistake: some work-items skip a barrier"],
    # Oclgrind sees the race however the device counted; the reported line tells the mistake
    "histogram/plain_increment": ["plain_increment.cl:5:22: data race",
                                  "likely mistake: an update of bins is not atomic"],
    "histogram/local_plain_increment": ["local_plain_increment.cl:9:29: data race",
                                        "likely mistake: the local increment is not atomic"],
    "histogram/no_barrier_before_merge": ["no_barrier_before_merge.cl:11:30: data race",
                                          "likely mistake: a barrier is missing"],
    "histogram/not_zeroed": ["not_zeroed.cl:6:9: a value that was never initialized",
                             "likely mistake: local_bins was not zeroed before counting"],
    # bins beyond the group's size are never zeroed: only the cases with more bins than
    # work-items per group show it
    "histogram/zero_own_slot_only": ["likely mistake: local_bins was not zeroed before counting",
                                     "nbins=37, global 72, local 24"],
    "histogram/merge_stores": ["merge_stores.cl:12:17: data race",
                               "likely mistake: counts stored over bins"],
    "histogram/stored_over": ["stored_over.cl:7:21: data race",
                              "likely mistake: counts stored over bins"],
    "histogram/no_stride": ["likely mistake: only the first 2 elements of data were counted"],
}


@pytest.mark.parametrize("wrong", sorted(WRONG_KERNELS))
def test_wrong_kernels_are_rejected_with_their_diagnosis(wrong, oclgrind_present):
    name = wrong.split("/")[0]
    report = run_check(name, TESTS / "wrong" / f"{wrong}.cl", run_timeout=20)
    assert not report.passed
    for fragment in WRONG_KERNELS[wrong]:
        either = fragment if isinstance(fragment, tuple) else (fragment,)
        assert any(x in report.message for x in either), f"{fragment!r} not in:\n{report.message}"
    assert "Traceback" not in report.message
    assert not contradictions(name, report), report.message


def test_a_kernel_oclgrind_cannot_simulate_is_simulated_built_without_optimizations(
        oclgrind_present):
    # x > y ? x - y : 0 on uints becomes llvm.usub.sat, which Oclgrind 21.10 does not know; built
    # with -cl-opt-disable the kernel has no such instruction, and Oclgrind checks it all
    # (Oclgrind's pass is built that way from the start: it sees the program as written, a load
    # the optimizer would drop included)
    report = run_check("erosion_1d", TESTS / "oclgrind_gaps" / "erosion_1d_saturating.cl")
    assert report.passed and report.oclgrind_available, report.message
    assert report.oclgrind_pass.gaps == [] and "not looked for" not in report.message


def test_a_gap_left_after_the_unoptimized_build_passes_on_the_device_with_what_was_not_checked():
    """Where Oclgrind cannot simulate even the unoptimized build, the device decides alone and
    the learner reads what was not looked for (the verdict on such facts)."""
    from helpers.checking.diagnosis import oclgrind_gap
    from helpers.checking.oclgrind import Gap
    from helpers.checking.passes import OclgrindResult
    from helpers.device import DeviceSpec
    op = OclgrindResult(DeviceSpec("Oclgrind", "OpenCL 1.2 (Oclgrind 21.10)",
                                   "Oclgrind Simulator"), [], gaps=[Gap("llvm.usub.sat.i32")])
    said = oclgrind_gap(op)
    assert "does not know llvm.usub.sat" in said and "write max(x, y) - y" in said
    assert "out-of-bounds accesses and races were not looked for" in said


# A test-only exercise with barriers: the referee path, and the barrier mistakes.
def _block_sum(kernel: str):
    return run_check("block_sum", TESTS / "wrong" / "block_sum" / f"{kernel}.cl",
                     registry_files=[TEST_REGISTRY])


def test_correct_reduction_passes(oclgrind_present):
    report = _block_sum("sequential")
    assert report.passed and not report.miscompiled, report.message


def test_a_correct_kernel_the_driver_miscompiles_passes_with_the_driver_named(oclgrind_present):
    report = _block_sum("interleaved")
    assert report.passed, report.message
    if "PoCL 3." in report.device_pass.device.platform_version:
        # the known PoCL 3.x bug (DESIGN.md): the device gets it wrong, Oclgrind referees
        assert report.device_pass.failing()
        assert report.miscompiled and "Your kernel is correct" in report.message
        assert "miscompiled" in report.message


def test_missing_barrier_is_reported_as_a_race_at_its_line(oclgrind_present):
    report = _block_sum("missing_barrier")
    assert not report.passed
    assert "missing_barrier.cl:11:26: data race" in report.message


def test_divergent_barrier_is_reported_at_its_line(oclgrind_present):
    report = _block_sum("divergent_barrier")
    assert not report.passed
    assert "divergent_barrier.cl:12:13: divergent barrier" in report.message


def test_notebooks_are_committed_without_outputs():
    """What git holds (a learner's notebooks, saved by JupyterLab with their outputs, are theirs)."""
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        if tracked() is not None and f"notebooks/{path.name}" not in tracked():
            continue   # a learner's own notebook (Untitled.ipynb, a copy), not the course's
        nb = json.loads(committed(f"notebooks/{path.name}"))
        with_output = [i for i, c in enumerate(nb["cells"])
                       if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))]
        assert not with_output, f"{path.name}: cells {with_output} carry outputs (nbstripout)"
        assert "widgets" not in nb.get("metadata", {}), f"{path.name} carries widget state"
        # nbformat 4.5: every cell has a unique id (newer nbformat warns, later ones will refuse)
        ids = [c.get("id") for c in nb["cells"]]
        assert None not in ids and len(set(ids)) == len(ids), f"{path.name}: cell ids {ids}"


PERFORMANCE = sorted(ex.name for ex in exercises() if ex.performance)


def test_the_performance_exercises_are_these():
    assert PERFORMANCE == ["bank_fix", "divergence_fix", "histogram", "sgemm_tiled",
                           "softmax_group", "softmax_online", "softmax_rows", "spill_fix",
                           "strided_fix", "transpose"]


@pytest.mark.parametrize("name", PERFORMANCE)
def test_a_performance_exercise_is_timed_beside_the_solution(name, oclgrind_present):
    report = run_check(name, solutions=True)
    assert report.passed, report.message
    speed = report.speed_pass.speed
    assert speed["yours"]["seconds"] > 0 and speed["solution"]["seconds"] > 0, report.message
    if get(name).performance.given:
        assert speed["given"]["seconds"] > 0
    assert "Speed (" in report.message and "of this device's" in report.message


def test_the_speed_target_decides_only_when_asked(monkeypatch):
    import helpers.checking.checker as check_module
    monkeypatch.setattr(check_module, "speed_report",
                        lambda ex, sp, dev: (["Speed: 1.0 GB/s, 1% of ..."], False))
    report = run_check("transpose", solutions=True)
    assert report.passed and "Speed: 1.0 GB/s" in report.message
    report = run_check("transpose", solutions=True, require_speed=True)
    assert not report.passed
    assert "it is correct, but this check asks for its speed target too" in report.message
    monkeypatch.setenv("COURSE_REQUIRE_SPEED", "1")
    assert not run_check("transpose", solutions=True).passed


def test_a_performance_verdict_is_printed_before_its_speed_is_timed(monkeypatch, capsys):
    import helpers.checking.checker as check_module
    printed_before = []

    def speed_report(ex, sp, dev):
        printed_before.append(capsys.readouterr().out)
        return ["Speed: 1.0 GB/s, 1% of ..."], True

    monkeypatch.setattr(check_module, "speed_report", speed_report)
    check_module.check("transpose", solutions=True)
    before, after = printed_before[0], capsys.readouterr().out
    assert before.startswith("✔ transpose passed") and "Now timing its speed..." in before
    assert "Speed" not in before and after.strip() == "Speed: 1.0 GB/s, 1% of ..."
    # asked for the target, the verdict waits for the timing that decides it
    with pytest.raises(check_module.KernelCheckFailed):
        monkeypatch.setattr(check_module, "speed_report",
                            lambda ex, sp, dev: (["Speed: 1.0 GB/s"], False))
        check_module.check("transpose", solutions=True, require_speed=True)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("name, kernel", [("sgemm_tiled", "plain"), ("transpose", "naive")])
def test_right_values_without_the_tile_fail_because_the_exercise_is_about_it(name, kernel,
                                                                              oclgrind_present):
    report = run_check(name, TESTS / "slow" / name / f"{kernel}.cl")
    assert not report.passed and not report.speed_pass, report.message
    first = report.message.splitlines()[1]
    assert "gives the right values, but never reads or writes local memory" in first
    assert "this exercise is about the tile" in first


def test_the_lookup_table_remedy_passes_too(oclgrind_present):
    report = run_check("divergence_fix", TESTS / "slow" / "divergence_fix" / "table.cl")
    assert report.passed, report.message


TECHNIQUE = {"strided_fix": "not coalesced", "bank_fix": "bank conflicts",
             "divergence_fix": "its warps split", "spill_fix": "private memory"}


@pytest.mark.parametrize("name", sorted(TECHNIQUE))
def test_the_starting_kernel_gives_right_values_and_fails_on_its_technique(name, tmp_path,
                                                                             oclgrind_present):
    """The kernel a performance exercise starts from (kernels/studies/, renamed to the exercise's
    function) computes the right values, and timing alone let it pass on a CPU; the warp model
    sees the technique missing, on every device, and says which counter, at which line."""
    from helpers.kernels import KERNELS
    file, function = get(name).performance.given
    kernel = tmp_path / f"{name}.cl"
    kernel.write_text(f"#define {function} {name}\n" + (KERNELS / "studies" / file).read_text())
    report = run_check(name, kernel)
    assert not report.passed, report.message
    assert "is right, but" in report.message and TECHNIQUE[name] in report.message, report.message
    assert "(the worst at line " in report.message
    assert report.counters is not None and report.counters["available"]


@pytest.mark.once
def test_one_file_reached_two_ways_and_a_notebooks_cells_register_again():
    from dataclasses import replace

    from helpers.exercises import model
    record = replace(get("float_copy"), name="course_test_twice")
    try:
        model.register(record, origin=str(ROOT / "helpers" / "exercises" / ".." / "x.py"))
        model.register(record, origin=str(ROOT / "helpers" / "x.py"))      # the same file
        model.register(replace(record, name="course_test_cell"), origin="<ipython-input-1>")
        model.register(replace(record, name="course_test_cell"), origin="<ipython-input-2>")
    finally:
        for name in ("course_test_twice", "course_test_cell"):
            model.REGISTRY.pop(name, None)
            model._ORIGIN.pop(name, None)
