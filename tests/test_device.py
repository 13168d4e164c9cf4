"""Device choice, the device table and the command line's answer when there is no platform."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pyopencl as cl

from helpers.device import _rank, all_devices, choose_device, device_table, is_oclgrind

from .conftest import ROOT


def _fake(platform: str, version: str, kind: int, name: str = "dev"):
    return SimpleNamespace(platform=SimpleNamespace(name=platform, version=version), type=kind,
                           name=name)


def test_default_choice_is_never_oclgrind(oclgrind_present, monkeypatch):
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    monkeypatch.delenv("COURSE_DEVICE", raising=False)
    assert not is_oclgrind(choose_device())


def test_oclgrind_ranks_last_although_it_calls_itself_a_gpu():
    grind = _fake("Oclgrind", "OpenCL 1.2 (Oclgrind 21.10)", cl.device_type.GPU | cl.device_type.CPU)
    cpu = _fake("Portable Computing Language", "OpenCL 3.0 PoCL 3.0-rc2", cl.device_type.CPU)
    gpu = _fake("NVIDIA CUDA", "OpenCL 3.0 CUDA 13.0", cl.device_type.GPU)
    assert sorted([grind, cpu, gpu], key=_rank) == [gpu, cpu, grind]


def test_duplicate_platforms_are_chosen_by_version_not_by_listing_order():
    pip = _fake("Portable Computing Language", "OpenCL 3.0 PoCL 3.0-rc2  Linux", cl.device_type.CPU)
    system = _fake("Portable Computing Language", "OpenCL 3.0 PoCL 3.1+debian  Linux",
                   cl.device_type.CPU)
    assert sorted([pip, system], key=_rank)[0] is system
    assert sorted([system, pip], key=_rank)[0] is system


def test_course_device_variable_selects_by_name(oclgrind_present, monkeypatch):
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    monkeypatch.setenv("COURSE_DEVICE", "oclgrind")
    assert is_oclgrind(choose_device())


def test_pyopencl_ctx_is_honoured_first(oclgrind_present, monkeypatch):
    platforms = cl.get_platforms()
    index = next(i for i, p in enumerate(platforms) if p.name == "Oclgrind")
    monkeypatch.setenv("PYOPENCL_CTX", f"{index}:0")
    monkeypatch.setenv("COURSE_DEVICE", "portable")  # PYOPENCL_CTX wins over it
    assert is_oclgrind(choose_device())


def test_table_lists_every_device_with_its_facts_and_marks_the_chosen_one():
    table = device_table()
    for dev in all_devices():
        assert dev.name.strip() in table
    chosen = choose_device()
    marked = [line for line in table.splitlines() if line.startswith("*  ")]
    assert len(marked) == 1 and chosen.name.strip() in marked[0]
    header = table.splitlines()[0]
    for column in ("CUs", "max WG", "max WI sizes", "local mem", "global mem", "OpenCL C", "driver"):
        assert column in header


def test_devices_command_exits_2_with_a_sentence_when_there_is_no_platform(tmp_path):
    """A pyopencl whose bundled ICD files are gone, and no system ICD: no platform at all."""
    real = Path(cl.__file__).parent
    shadow = tmp_path / "site" / "pyopencl"
    shadow.mkdir(parents=True)
    for entry in real.iterdir():
        if entry.name != ".libs":
            (shadow / entry.name).symlink_to(entry)
    if (real / ".libs").is_dir():
        (shadow / ".libs").mkdir()
        for lib in (real / ".libs").iterdir():
            if lib.suffix != ".icd":
                (shadow / ".libs" / lib.name).symlink_to(lib)
    empty = tmp_path / "vendors"
    empty.mkdir()
    path = os.pathsep.join(x for x in (str(shadow.parent), str(ROOT),
                                       os.environ.get("PYTHONPATH")) if x)
    env = {**os.environ, "PYTHONPATH": path, "OCL_ICD_VENDORS": str(empty),
           "COURSE_INTEL_ICD": "0"}
    env.pop("PYOPENCL_CTX", None)
    out = subprocess.run([sys.executable, "-m", "helpers", "devices"], capture_output=True,
                         text=True, env=env, cwd=ROOT)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "No OpenCL platform was found" in out.stderr and "make lab" in out.stderr


def test_a_cells_own_build_shows_no_compiler_chatter():
    """course_context keeps pyopencl's "Non-empty compiler output encountered" out of a cell (Intel's
    runtime logs every build): a raw cl.Program(...).build() after it warns nothing of the kind."""
    import warnings

    import pyopencl as cl

    from helpers.device import course_context
    from helpers.kernels import kernel_path
    ctx, _ = course_context(quiet=True)
    with warnings.catch_warnings(record=True) as caught:
        cl.Program(ctx, kernel_path("scale").read_text() + "\n// a new text: no cached binary\n"
                   f"// {id(caught)}\n").build()
    assert not [w for w in caught if "Non-empty compiler output" in str(w.message)]
