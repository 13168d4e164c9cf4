"""Building kernels: build logs rewritten to cite the learner's own file, once."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers.checking import run_check
from helpers.device import course_context
from helpers.kernels import KernelBuildError, build, format_build_log, kernel_path, parse_build_log

from .conftest import ROOT, TESTS

POCL_LOG = """error: /root/.cache/pocl/kcache/tempfile_qFZ1V2.cl:4:23: use of undeclared identifier 'x'
Device pthread-Intel(R) Xeon(R) Processor failed to build the program
"""
OCLGRIND_LOG = """input.cl:4:23: error: use of undeclared identifier 'x'
    dst[i] = src[i] + x;
                      ^
1 error generated.
"""
NVIDIA_LOG = """<kernel>:4:23: error: use of undeclared identifier 'x'
<kernel>:2:10: warning: unused variable 'k'
"""


@pytest.mark.parametrize("log", [POCL_LOG, OCLGRIND_LOG, NVIDIA_LOG])
def test_each_compilers_log_is_placed_at_the_line_and_column(log):
    d = parse_build_log(log)[0]
    assert (d.severity, d.line, d.col) == ("error", 4, 23)
    assert d.message == "use of undeclared identifier 'x'"


def test_repeated_messages_appear_once_and_warnings_keep_their_severity():
    diags = parse_build_log(NVIDIA_LOG + NVIDIA_LOG)
    assert [(d.severity, d.line) for d in diags] == [("error", 4), ("warning", 2)]


def test_formatted_log_cites_the_learners_file_and_shows_the_line(tmp_path):
    source = "a\nb\nc\n    dst[i] = src[i] + x;\n"
    text = format_build_log(POCL_LOG, kernel_path("float_copy", solutions=False), source)
    assert text.startswith("kernels/float_copy.cl:4:23: error: use of undeclared identifier 'x'")
    assert "dst[i] = src[i] + x;" in text and "kcache" not in text
    assert text.splitlines()[-1] == " " * 4 + " " * 22 + "^"


def test_an_unlocated_log_is_kept_whole():
    assert "strange failure" in format_build_log("strange failure\n", "kernels/k.cl")


def test_build_error_names_the_learners_file_once(tmp_path, monkeypatch):
    bad = tmp_path / "kernels" / "broken.cl"
    bad.parent.mkdir()
    bad.write_text("__kernel void broken(__global float *a)\n{\n    a[0] = undefined_name;\n}\n")
    monkeypatch.setattr("helpers.kernels.KERNELS", bad.parent)
    ctx, _ = course_context(quiet=True)
    with pytest.raises(KernelBuildError) as info:
        build(ctx, "broken", solutions=False)
    text = str(info.value)
    assert f"{bad}:3:12: error: use of undeclared identifier 'undefined_name'" in text
    assert text.count("undefined_name'") == 1
    assert "BUILD_PROGRAM_FAILURE" not in text and "tempfile" not in text


def test_solutions_switch_picks_the_solution_file_and_demo_kernels_stay_in_kernels():
    assert kernel_path("float_copy", solutions=True).parent.name == "solutions"
    assert kernel_path("float_copy", solutions=False).parent.name == "kernels"
    assert kernel_path("scale", solutions=True).parent.name == "kernels"


def test_course_builds_print_nothing_under_a_cell(tmp_path):
    """The peaks at float16 make PoCL's compiler warn about its own headers: none of that chatter
    (nor pyopencl's CompilerWarning) reaches stderr, which a notebook shows in red."""
    code = ("from helpers import bench, course_context\n"
            "ctx, queue = course_context(quiet=True)\n"
            "bench.measure_peaks(ctx, queue, nbytes=1 << 20, repeats=1, progress=False)\n")
    env = {**os.environ, "COURSE_CACHE": str(tmp_path / "cache"),
           "POCL_CACHE_DIR": str(tmp_path / "kcache")}  # a fresh build, as on a first run
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""


def test_the_check_shows_the_compilers_warnings_at_their_line():
    report = run_check("float_copy", TESTS / "warnings" / "float_copy_self_compare.cl")
    assert report.passed, report.message
    assert ("The compiler warns:\n    tests/warnings/float_copy_self_compare.cl:5:11: warning: "
            "self-comparison always evaluates to true") in report.message
    assert "if (i == i && i < n)" in report.message
