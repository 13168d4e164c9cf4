"""The warp model (issue 44): an Oclgrind plugin that counts what a GPU's warps would do. Its
counters on kernels whose answer is known (tests/warp/*.cl, run by tests/warp_kernels.py): sectors
per request of a coalesced, a strided and a float4 copy; wavefronts of a local tile read down its
columns, with and without padding; divergent branches; private memory; and the same with warps
of 64. Then the Python function and the command line on an exercise, and what they say where the
plugin cannot be built or loaded."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers.checking import counters as counting
from helpers.paths import ROOT
from helpers.warp import build
from tests.warp_kernels import RUNS

pytestmark = pytest.mark.once   # Oclgrind only: not the course device


def line_of(file: str, text: str) -> int:
    lines = (ROOT / "tests" / "warp" / file).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def _launches(tmp_path_factory, warp_size: int) -> dict[str, dict]:
    built = build.plugin()
    assert built.path is not None, built.why
    out = tmp_path_factory.mktemp(f"warp{warp_size}") / "warp.jsonl"
    env = {**os.environ, "OCLGRIND_PLUGINS": str(built.path), "COURSE_WARP_OUT": str(out),
           "COURSE_WARP_SIZE": str(warp_size)}
    done = subprocess.run([sys.executable, "-m", "tests.warp_kernels"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    launches = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(launches) == len(RUNS)
    return {run[0]: counting.summary([launch]) | {"raw": launch}
            for run, launch in zip(RUNS, launches, strict=True)}


@pytest.fixture(scope="module")
def warp32(tmp_path_factory):
    return _launches(tmp_path_factory, 32)


@pytest.fixture(scope="module")
def warp64(tmp_path_factory):
    return _launches(tmp_path_factory, 64)


def test_sectors_per_request_of_coalesced_strided_and_float4_copies(warp32):
    assert warp32["copy"]["global_load_sectors_per_request"] == 4.0
    assert warp32["copy"]["global_store_sectors_per_request"] == 4.0
    assert warp32["strided"]["global_load_sectors_per_request"] == 32.0
    assert warp32["strided"]["global_store_sectors_per_request"] == 4.0
    assert warp32["copy4"]["global_sectors_per_request"] == 16.0
    # each is its width's ideal but the strided read, which is 8 times it
    assert warp32["copy4"]["global_ideal_sectors_per_request"] == 16.0
    assert warp32["strided"]["raw"]["counts"]["global load"]["ideal"] * 8 == \
        warp32["strided"]["raw"]["counts"]["global load"]["units"]
    # 4096 floats by warps of 32: 128 requests a direction
    assert warp32["copy"]["global_requests"] == 256


def test_the_worst_access_is_placed_at_its_line(warp32):
    assert warp32["strided"]["lines"]
    worst = warp32["strided"]["worst"]["global"]
    assert (worst["line"], worst["access"], worst["value"]) == (
        line_of("strided.cl", "in[i * 32]"), "global load", 32.0)
    assert warp32["tile32"]["worst"]["local"]["line"] == line_of("tile.cl", "= t[x][y]")


@pytest.mark.parametrize("run, wavefronts", [("tile32", 32.0), ("tile32pad", 1.0),
                                             ("tile16", 8.0), ("tile16pad", 2.0)])
def test_bank_conflicts_of_a_tile_read_down_its_columns(warp32, run, wavefronts):
    loads = warp32[run]["raw"]["counts"]["local load"]
    assert loads["units"] / loads["requests"] == wavefronts
    assert loads["ideal"] == loads["requests"]         # 32 floats: one wavefront at best


def test_divergence_splits_every_warp_on_parity_and_none_on_the_warp(warp32):
    parity, by_warp = warp32["parity"], warp32["by_warp"]
    assert parity["branches"] == 128 and parity["divergent_branches"] == 128
    assert by_warp["branches"] == 128 and by_warp["divergent_branches"] == 0
    assert parity["branches_classified"]
    assert parity["worst"]["branch"]["line"] == line_of("branch.cl", "if (CONDITION)")


def test_a_private_array_indexed_at_run_time_stays_in_memory_and_scalars_do_not(warp32):
    # 8 stores to clear it and 20 rounds of a load and a store, for each of 1024 work-items
    assert warp32["ring"]["private_accesses"] == 1024 * (8 + 20 + 20)
    assert warp32["ring"]["private_requests"] == 32 * (8 + 20 + 20)
    assert warp32["scalars"]["private_accesses"] == 0


def test_warps_of_64(warp64):
    assert warp64["copy"]["warp_size"] == 64
    assert warp64["copy"]["global_load_sectors_per_request"] == 8.0
    assert warp64["strided"]["global_load_sectors_per_request"] == 64.0
    assert warp64["copy"]["global_requests"] == 128
    # a 64-wide wavefront holds two rows of 32: two words in each bank, even padded
    pad = warp64["tile32pad"]["raw"]["counts"]["local load"]
    assert pad["units"] / pad["requests"] == 2.0
    # lanes 0-31 and 32-63 of one wavefront now disagree on l / 32
    assert warp64["by_warp"]["divergent_branches"] == warp64["by_warp"]["branches"] == 64


def test_the_function_and_the_command_line_on_an_exercise():
    got = counting.counters("float_copy", solutions=True)
    assert got["available"], got["why"]
    assert got["global_sectors_per_request"] == 4.0 and got["correct"]
    done = subprocess.run([sys.executable, "-m", "helpers", "counters", "float_copy",
                           "--solutions", "--json"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    for key in ("global_sectors_per_request", "local_wavefronts_per_request",
                "divergent_branches", "private_accesses", "counts", "worst"):
        assert key in shown
    assert shown["worst"]["global"]["line"]
    text = subprocess.run([sys.executable, "-m", "helpers", "counters", "float_copy",
                           "--solutions"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert "4.00 sectors per request" in text.stdout


def test_the_lessons_count_the_starting_kernel_beside_the_solution():
    """For each technique exercise the lessons show (notebooks 06, 08, 09, 10 and 15), the counter
    of its technique: the kernel it starts from far from the ideal (32 sectors a request, 32
    passes a read of the tile, every warp split, private memory used), the solution at it; a
    count without an ideal (the histogram's atomic updates of global memory) well below the
    start's."""
    assert sorted(counting.lesson_exercises()) == ["bank_fix", "divergence_fix", "histogram",
                                                    "spill_fix", "strided_fix"]
    for name in counting.lesson_exercises():
        rows = counting.compare(name, seed=1)
        assert [r["role"] for r in rows] == ["given", "solution"], name
        start, solution = rows
        assert start["counters"]["available"] and solution["counters"]["available"], name
        assert start["counters"]["case"] == solution["counters"]["case"]
        assert start["kernel"].startswith("kernels/studies/") and start["record"] == \
            f"{name}:{counting.get(name).performance.given[1]}"
        if solution["ideal"] is None:
            assert start["value"] >= 2 * solution["value"] > 0, (name, start["value"])
            continue
        assert solution["value"] <= 1.25 * solution["ideal"], (name, solution["value"])
        assert start["value"] >= 8 * max(solution["value"], solution["ideal"], 1), \
            (name, start["value"])
    assert counting.compare("bank_fix", seed=1)[0]["value"] == 32.0
    with pytest.raises(ValueError, match="does not start from a slow kernel"):
        counting.compare("transpose")


def test_notebook_14_counts_the_requests_the_tiles_save():
    """The figures notebook 14 quotes under its model cell: on a 64 x 64 x 64 product in 16 x 16
    work-groups (128 warps), the plain product it starts from (sgemm_tiled:sgemm_plain) sends
    16,512 warp requests to global memory, 128 loads a warp and one store; the tiles 1,152, T = 16
    times fewer loads and the same stores."""
    from helpers.exercises import Case
    case = Case((64, 64), (16, 16), {"m": 64, "n": 64, "k": 64})
    plain = counting.counters("sgemm_tiled:sgemm_plain", case=case, seed=1)
    tiled = counting.counters("sgemm_tiled", solutions=True, case=case, seed=1)
    assert plain["available"] and tiled["available"], (plain["why"], tiled["why"])
    assert plain["correct"] and tiled["correct"]
    assert (plain["global_requests"], tiled["global_requests"]) == (16512, 1152)
    loads = [r["counts"]["global load"]["requests"] for r in (plain, tiled)]
    stores = [r["counts"]["global store"]["requests"] for r in (plain, tiled)]
    assert loads == [16384, 1024] and stores == [128, 128]
    assert plain["local_requests"] == 0 < tiled["local_requests"]


def test_the_lessons_count_the_learners_kernel_once_it_has_passed(monkeypatch, tmp_path):
    mine = tmp_path / "strided_fix.cl"
    mine.write_text((ROOT / "solutions" / "strided_fix.cl").read_text())
    monkeypatch.setattr(counting, "kernel_path", lambda name, solutions=None: mine)
    # (the record of passed checks is by the kernel's text: the solution's, which an earlier test
    # may have checked, would count as passed; this test says which has)
    monkeypatch.setattr(counting, "has_passed", lambda name, path: False)
    assert [r["role"] for r in counting.compare("strided_fix")] == ["given", "solution"]
    monkeypatch.setattr(counting, "has_passed", lambda name, path: path == mine)
    rows = counting.compare("strided_fix")
    assert [(r["role"], r["value"]) for r in rows] == [("given", 32.0), ("yours", 4.0),
                                                       ("solution", 4.0)]


def test_without_a_compiler_it_says_why_and_nothing_raises(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    monkeypatch.setattr(build, "compilers", lambda: [])
    got = counting.counters("float_copy", solutions=True)
    assert not got["available"] and "no C++ compiler" in got["why"]
    assert got["global_sectors_per_request"] is None
    from helpers.__main__ import main
    assert main(["counters", "float_copy", "--solutions"]) == 1
    assert "no warp-model counters: there is no C++ compiler" in capsys.readouterr().out


def test_setup_fetches_zig_only_where_there_is_no_compiler(monkeypatch, capsys):
    """Setup's build (``--fetch-compiler``) installs pip's ziglang where pip's Oclgrind is and no
    C++ compiler is; nothing where a compiler is, or where Oclgrind's wheel is not."""
    from types import SimpleNamespace
    asked = []
    run = lambda command: asked.append(command) or SimpleNamespace(returncode=0)  # noqa: E731
    monkeypatch.setattr(build, "compilers", lambda: [])
    assert build.fetch_compiler(run) == ""
    assert [c[1:] for c in asked] == [["-m", "pip", "install", "--quiet", "ziglang"]]
    assert "installing pip's ziglang" in capsys.readouterr().out
    asked.clear()
    failed = lambda command: SimpleNamespace(returncode=1)  # noqa: E731
    assert "pip install ziglang failed" in build.fetch_compiler(failed)
    monkeypatch.setattr(build, "compilers", lambda: [("gnu", ["g++"])])
    assert build.fetch_compiler(run) == "" and asked == []
    monkeypatch.setattr(build, "compilers", lambda: [])
    monkeypatch.setattr(build, "find_oclgrind", lambda: "pip's Oclgrind is not installed")
    assert build.fetch_compiler(run) == "" and asked == []


def test_a_plugin_oclgrind_cannot_load_is_said(monkeypatch, tmp_path):
    bad = tmp_path / "warp-model-bad.so"
    bad.write_text("not a library")
    monkeypatch.setattr(build, "plugin", lambda **_: build.Built(bad))
    got = counting.counters("float_copy", solutions=True)
    assert not got["available"]
    assert "the warp model reported nothing (Loading Oclgrind plugin failed" in got["why"]


def test_the_build_is_named_by_its_sources_oclgrind_and_compiler(tmp_path, monkeypatch):
    lib = tmp_path / "liboclgrind-1234.so"
    lib.write_bytes(b"x")
    grind = build.Oclgrind(tmp_path, lib)
    first = build.digest(grind, "gnu")
    assert build.digest(grind, "zig") != first
    lib.write_bytes(b"xy")   # another Oclgrind
    assert build.digest(grind, "gnu") != first
    monkeypatch.setattr(build.sys, "platform", "darwin")
    assert "Linux x86-64 only" in build.find_oclgrind()


def test_where_the_model_cannot_run_a_right_kernel_is_not_judged_and_not_passed(
        monkeypatch, tmp_path):
    """Right results with no warp model to judge the technique: not a pass. Each check's first
    line says so and why (a grade's every row, not the first alone), the status is a status of its
    own, and the record of passed checks is not written."""
    from helpers.checking import run_check
    from helpers.checking.mistakes import likely_mistake, status_of
    from helpers.exercises import passed
    from helpers.kernels import SOLUTIONS
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    monkeypatch.setattr(build, "compilers", lambda: [])
    first = run_check("leaky_relu", SOLUTIONS / "leaky_relu.cl")
    second = run_check("leaky_relu", SOLUTIONS / "leaky_relu.cl")
    for report in (first, second):
        assert not report.passed and report.unjudged and "no C++ compiler" in report.unjudged
        head = report.message.splitlines()[0]
        assert head.startswith("leaky_relu not judged (") and "not a pass" in head, head
        assert status_of(report) == "not judged"
        assert likely_mistake(report) == "technique not judged"
    assert not passed.has_passed("leaky_relu", SOLUTIONS / "leaky_relu.cl")


def test_a_float4_kernel_counted_first_does_not_blind_the_model_to_branches():
    """In a fresh process (a fresh worker), a kernel whose float4s come through vload4 and vstore4
    is counted first, then a kernel that splits its warps: the plugin learns how LLVM numbers
    instructions from the first launch it sees, and that float4 kernel once taught it wrong (every
    branch after it went uncounted, and the divergent kernel passed its check). A plain copy
    now runs first in every count."""
    probe = ("import json\nfrom pathlib import Path\nfrom helpers.checking.counters import counters\n"
             "out = []\nfor name, k in [('strided_fix', 'tests/right/strided_fix/float4_grid_stride.cl'),"
             " ('divergence_fix', 'tests/wrong/divergence_fix/parity_branch_in_loop.cl')]:\n"
             "    f = counters(name, Path(k))\n"
             "    out.append([f['available'], f['branches'], f['divergent_branches']])\n"
             "print(json.dumps(out))\n")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300,
                         cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    (copy_ok, copy_branches, _), (div_ok, div_branches, div_split) = \
        json.loads(run.stdout.strip().splitlines()[-1])
    if not (copy_ok and div_ok):
        pytest.fail("the warp model could not run here")
    assert copy_branches > 0 and div_branches > 0 and div_split > 0


def test_a_build_for_another_checkout_keeps_the_plugins_others_use(monkeypatch, tmp_path):
    """Two checkouts (or two Oclgrinds) share the cache folder: a build names its plugin by its
    own digest and removes no other (one removed the other's, and a process of the first then
    failed to load it)."""
    from pathlib import Path
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    folder = tmp_path / "warp"
    folder.mkdir()
    theirs = folder / "warp-model-0123456789abcdef.so"
    theirs.write_bytes(b"another checkout's plugin")
    grind = build.find_oclgrind()
    if isinstance(grind, str):
        pytest.skip(grind)

    def compiled(command, **_):
        Path(command[command.index("-o") + 1]).write_bytes(b"built")
        return subprocess.CompletedProcess(command, 0, "", "")
    monkeypatch.setattr(build.subprocess, "run", compiled)
    made = build._build(grind, [("gnu", ["c++"])], folder)
    assert made.path is not None and made.path.read_bytes() == b"built"
    assert theirs.read_bytes() == b"another checkout's plugin"


def test_the_tour_of_notebook_05_counts_what_its_lesson_says():
    """Notebook 05's tour: each tiny kernel's counter is the one its lesson and prediction give
    (8 sectors for in[2 * i], the prediction's answer)."""
    from helpers.checking import warp_tour as tour
    result = tour.run()
    assert result["available"], result["why"]
    values = {r["kernel"] + str(i): r["value"] for i, r in enumerate(result["rows"])}
    assert list(values.values())[:5] == [4.0, 8.0, 32.0, 32.0, 1.0], values
    assert values["odd_and_even5"] == f"{tour.ITEMS // 32} of {tour.ITEMS // 32}"
    assert values["private_array6"] > 0
    assert "8.0" in tour.table(result).splitlines()[2]


def test_the_tour_says_why_when_the_model_cannot_run(monkeypatch):
    from helpers.checking import warp_tour as tour
    from helpers.warp import build as warp_build
    monkeypatch.setattr(warp_build, "plugin", lambda: warp_build.Built(None, "no compiler"))
    result = tour.run()
    assert not result["available"] and tour.table(result) == "No warp model here: no compiler."
