"""Learner code calls nothing native (issue 53 point 3): Intel's CPU runtime links a kernel's call to
a function it neither defines nor knows against the process that runs it (libc, libpython). Every
such call is refused at build, however the preprocessor spells it, before the kernel runs; the
course's own kernels and the right corpus build as before (their builds pass through the same
check in every other test)."""

from __future__ import annotations

from pathlib import Path

import pyopencl as cl
import pytest

from helpers.checking import run_check
from helpers.kernels import KernelBuildError, build_source, native_calls

from .conftest import TESTS

# each writes a file through libc (or runs Python) if it ever runs
SPELLINGS = {
    "a plain declaration": "int mkdir(const __constant char *p, int m);\n#define CALL mkdir(P, 0700)",
    "extern": "extern int mkdir(const __constant char *p, int m);\n#define CALL mkdir(P, 0700)",
    "token pasting": "#define N(a, b) a##b\nint N(mk, dir)(const __constant char *p, int m);\n"
                     "#define CALL N(mk, dir)(P, 0700)",
    "a spliced line": "int mk\\\ndir(const __constant char *p, int m);\n#define CALL mkdir(P, 0700)",
    "a weak declaration": "__attribute__((weak)) int mkdir(const __constant char *p, int m);\n"
                          "#define CALL mkdir(P, 0700)",
    "overloadable": "__attribute__((overloadable)) int mkdir(const __constant char *p, int m);\n"
                    "#define CALL mkdir(P, 0700)",
    "libpython": "int PyRun_SimpleString(const __constant char *s);\n"
                 "#define CALL PyRun_SimpleString(\"import os; os.mkdir('\" P \"')\")",
}


def _intel():
    found = [d for p in cl.get_platforms() for d in p.get_devices() if "Intel" in p.name
             and d.type & cl.device_type.CPU]
    if not found:
        pytest.skip("Intel's CPU runtime is not installed here: it is the runtime that links "
                    "such calls (PoCL and Oclgrind refuse them at build or run)")
    return found[0]


def _kernel(spelling: str, marker: Path) -> str:
    return (f'#define P "{marker}"\n{spelling}\n'
            "__kernel void float_copy(__global const float *src, __global float *dst,\n"
            "                         const uint n)\n"
            "{\n    const uint i = get_global_id(0);\n    if (i == 0) dst[0] = (float)CALL;\n"
            "    if (i < n) dst[i] = src[i];\n}\n")


@pytest.mark.parametrize("how", list(SPELLINGS))
def test_a_call_to_the_machines_own_code_is_refused_at_build(how, tmp_path):
    ctx = cl.Context([_intel()])
    marker = tmp_path / "ran"
    source = _kernel(SPELLINGS[how], marker)
    with pytest.raises(KernelBuildError) as e:
        build_source(ctx, source, tmp_path / "float_copy.cl")
    if how == "overloadable":   # a mangled name nothing provides: Intel's own link fails
        assert "the build failed" in str(e.value)
    else:
        assert "does not define and OpenCL C does not provide" in str(e.value)
        assert ("mkdir" if how != "libpython" else "PyRun_SimpleString") in str(e.value)
    assert not marker.exists()


def test_the_check_refuses_it_before_any_pass_runs_it(tmp_path):
    _intel()
    marker = tmp_path / "ran"
    kernel = tmp_path / "float_copy.cl"
    kernel.write_text(_kernel(SPELLINGS["extern"], marker))
    report = run_check("float_copy", kernel=kernel, device="intel")
    assert not report.passed and "does not define and OpenCL C does not provide" in \
        report.message, report.message
    assert not marker.exists()


def test_what_the_runtime_provides_is_allowed():
    """Maths, printf, prefetch, and the copies a private array or async_work_group_copy compile
    to (found by a review: prefetch was refused)."""
    ctx = cl.Context([_intel()])
    src = (TESTS / "right" / "rotate_in_group" / "async_copy.cl").read_text()
    assert native_calls(build_source(ctx, src, "async_copy.cl")) == []
    prg = build_source(ctx, "__kernel void k(__global float *a) { float p[40];\n"
                       "prefetch(a, 64);\n"
                       "for (int j = 0; j < 40; j++) p[j] = sin(a[j]);\n"
                       "a[0] = p[(int)a[1] % 40]; printf(\"%f\", a[0]); }", "k.cl")
    assert native_calls(prg) == []
