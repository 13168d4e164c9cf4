"""A driver that aborts the process on one of the course's kernels never takes the caller down.

The driver is made to abort on purpose: ``tests/fake_driver/crash_on_build.c``, preloaded, aborts any
build whose options hold a given piece (here the peaks' ``-DVEC=float16``, the build that PoCL 3.0
aborts on AMD Zen 4), after leaving a half-written entry in PoCL's kernel cache as a dying compiler
does. Everything else goes to the real driver.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyopencl as cl
import pytest

from helpers import driver_probe
from helpers.checking import devcheck
from helpers.device import choose_device, describe, driver_name

from .conftest import ROOT, TESTS

PEAKS = """
from helpers import bench, course_context
ctx, queue = course_context(quiet=True)
peak = bench.peaks(ctx, queue, progress=False)
print("measured widths:", sorted(peak["gflop_per_s"]))
"""


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc")
    assert compiler, "a C compiler is needed to build the fake driver (apt-get install gcc)"
    out = tmp_path_factory.mktemp("fake") / "crash_on_build.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", str(out),
                    str(TESTS / "fake_driver" / "crash_on_build.c"), "-ldl"], check=True)
    return out


def loader() -> str:
    """The OpenCL loader pyopencl is linked with (bundled in its wheel, or the system's)."""
    libs = sorted((Path(cl.__file__).parent / ".libs").glob("libOpenCL*"))
    if libs:
        return str(libs[0])
    return "libOpenCL.so.1"


@pytest.fixture()
def crash_env(fake_driver, tmp_path) -> dict[str, str]:
    """The environment of a process whose driver aborts on the float16 peak kernels."""
    kcache = tmp_path / "kcache"
    (kcache / "AA" / "OLDENTRY").mkdir(parents=True)
    (kcache / "AA" / "OLDENTRY" / "program.bc").write_text("an entry from an earlier day")
    old = 1_000_000_000  # 2001: long before any run of this test
    os.utime(kcache / "AA" / "OLDENTRY" / "program.bc", (old, old))
    os.utime(kcache / "AA" / "OLDENTRY", (old, old))
    env = {**os.environ, "LD_PRELOAD": str(fake_driver), "FAKE_CRASH_OPTION": "-DVEC=float16",
           "FAKE_CRASH_LIBOPENCL": loader(), "FAKE_CRASH_LOG": str(tmp_path / "aborts.log"),
           "POCL_CACHE_DIR": str(kcache), "COURSE_CACHE": str(tmp_path / "course-cache"),
           "COURSE_DEVICE": choose_device().name.strip(),
           "COURSE_KEEP_VARIABLES": "FAKE_CRASH_*"}   # the fake driver's, for the check's children
    env.pop("PYOPENCL_CTX", None)
    env.pop(driver_probe.CHILD_VARIABLE, None)
    return env


def run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)


def aborts(env: dict[str, str]) -> int:
    log = Path(env["FAKE_CRASH_LOG"])
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_the_fake_driver_really_aborts_a_process_that_builds_float16(crash_env):
    """The premise: without the course's probe, this build kills the process."""
    code = ("import pyopencl as cl\n"
            f"dev = [d for p in cl.get_platforms() for d in p.get_devices() "
            f"if d.name.strip() == {crash_env['COURSE_DEVICE']!r}][0]\n"
            "cl.Program(cl.Context([dev]), '__kernel void k(){}').build(['-DVEC=float16'])\n")
    out = run(code, crash_env)
    assert out.returncode == -6, out.stderr          # SIGABRT
    assert "LLVM ERROR" in out.stderr and aborts(crash_env) == 1


def test_peaks_go_on_without_the_kernel_the_driver_aborts_on(crash_env):
    dev = choose_device(crash_env["COURSE_DEVICE"])
    out = run(PEAKS, crash_env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "measured widths: [1, 2, 4, 8]" in out.stdout
    sentence = next(x for x in out.stdout.splitlines() if "left out" in x)
    assert sentence.startswith("float16 left out of the peaks: ")
    for piece in (dev.name.strip(), driver_name(dev), "crashed building helpers/cl/peaks.cl",
                  "-DVEC=float16", "SIGABRT", "the driver said: LLVM ERROR: Cannot select"):
        assert piece in sentence, sentence
    assert aborts(crash_env) == 1
    # nothing the crash left in PoCL's kernel cache stays; what was there before does
    kcache = Path(crash_env["POCL_CACHE_DIR"])
    assert not (kcache / "ZZ" / "HALFWRITTENENTRY").exists()
    assert (kcache / "AA" / "OLDENTRY" / "program.bc").exists()

    # The next run on this machine says the same sentence, and nothing crashes again: the measured
    # peaks are cached, and so is the probe's outcome once they are measured anew.
    again = run(PEAKS, crash_env)
    assert again.returncode == 0 and sentence in again.stdout, again.stdout + again.stderr
    (Path(crash_env["COURSE_CACHE"]) / "peaks.json").unlink()
    anew = run(PEAKS, crash_env)
    assert anew.returncode == 0 and sentence in anew.stdout, anew.stdout + anew.stderr
    assert "measured widths: [1, 2, 4, 8]" in anew.stdout
    assert aborts(crash_env) == 1


def test_the_device_check_names_the_crash_and_checks_the_rest(crash_env, monkeypatch):
    monkeypatch.setattr(driver_probe, "_MEMORY", {})  # what it records stays with this test
    for name in ("LD_PRELOAD", "FAKE_CRASH_OPTION", "FAKE_CRASH_LIBOPENCL", "FAKE_CRASH_LOG",
                 "POCL_CACHE_DIR", "COURSE_CACHE", "COURSE_KEEP_VARIABLES"):
        monkeypatch.setenv(name, crash_env[name])  # the children inherit them; this process is
    dev = choose_device(crash_env["COURSE_DEVICE"])  # already running without the fake driver
    outcome = devcheck.check_device(dev, ["peaks float", "peaks float16", "demo scale",
                                          "solution float_copy"], progress=False)
    items = outcome["items"]
    assert items["peaks float16"]["status"] == "crashed"
    assert "SIGABRT" in items["peaks float16"]["detail"] and "LLVM ERROR" in \
        items["peaks float16"]["detail"]
    assert all(items[n]["status"] == "passed" for n in ("peaks float", "demo scale",
                                                        "solution float_copy")), items
    assert aborts(crash_env) == 1
    table = devcheck.table([outcome])
    assert "peaks float16: CRASHED" in table and describe(dev).split(" (")[0] in table
    # what crashed is remembered for this process's own builds
    assert any("-DVEC=float16" in f for f in devcheck.failures(dev))


def test_a_driver_that_builds_nothing_here_is_said_once_and_its_suite_not_run(crash_env):
    """pip's PoCL 3.0 on AMD Zen 5 builds no kernel at all ("unknown target CPU 'generic'"): the
    install says so in one sentence (no wall of build errors), the device choice passes it over,
    and make test's runner does not run the suite on it (it says why, and counts nothing)."""
    env = {**crash_env, "FAKE_BUILD_NOTHING": "1", "COURSE_KEEP_VARIABLES": "FAKE_*",
           "PYOPENCL_NO_CACHE": "1"}   # a binary from the cache would be built from no source
    platform = choose_device(crash_env["COURSE_DEVICE"]).platform.name
    out = subprocess.run([sys.executable, "-m", "helpers", "devices", "--check", "--brief",
                          "--device", platform], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    said = [ln for ln in out.stdout.splitlines() if "one-line kernel" in ln]
    assert len(said) == 1 and "unknown_target_cpu_generic" in said[0], out.stdout
    assert "ERROR" not in out.stdout and "KernelBuildError" not in out.stdout, out.stdout
    code = f"from tests.every_cpu import cannot_run; print(cannot_run({platform!r}))"
    why = run(code, env)
    assert why.returncode == 0 and "cannot build even a one-line kernel" in why.stdout, \
        why.stdout + why.stderr
    clean = run(code, {k: v for k, v in env.items() if k != "FAKE_BUILD_NOTHING"} | {
        "COURSE_CACHE": str(Path(env["COURSE_CACHE"]).with_name("fresh-cache"))})
    assert clean.stdout.strip() == "None", clean.stdout + clean.stderr


def test_a_checks_speed_pass_leaves_out_what_crashed_and_still_times_the_kernel(crash_env):
    """The check's speed pass measures the peaks in its worker (a child, which builds directly):
    a kernel known to crash this driver is left out there too, the verdict says so in a sentence,
    and the kernel is timed; nothing aborts again."""
    assert run(PEAKS, crash_env).returncode == 0 and aborts(crash_env) == 1   # the crash learned
    (Path(crash_env["COURSE_CACHE"]) / "peaks.json").unlink()   # the worker measures them anew
    out = subprocess.run([sys.executable, "-m", "helpers", "check", "strided_fix", "--solutions"],
                         capture_output=True, text=True, env=crash_env, cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Speed (" in out.stdout and "not measured" not in out.stdout, out.stdout
    assert "float16 left out of the peaks: " in out.stdout, out.stdout
    assert aborts(crash_env) == 1


def test_a_check_worker_that_died_building_leaves_no_broken_build_behind(crash_env):
    """Nothing known yet (no install's device check): the speed pass's worker dies building the
    float16 peak kernel. The verdict still comes, and what the dying compiler left in PoCL's
    kernel cache is removed, so no later process takes it for a good build."""
    out = subprocess.run([sys.executable, "-m", "helpers", "check", "strided_fix", "--solutions"],
                         capture_output=True, text=True, env=crash_env, cwd=ROOT, timeout=600)
    assert "strided_fix passed" in out.stdout, out.stdout + out.stderr
    assert aborts(crash_env) == 1
    kcache = Path(crash_env["POCL_CACHE_DIR"])
    assert not (kcache / "ZZ" / "HALFWRITTENENTRY").exists()
    assert (kcache / "AA" / "OLDENTRY" / "program.bc").exists()
