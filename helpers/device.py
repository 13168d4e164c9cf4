"""Choosing the OpenCL device the course runs on, its context and queue, and the device-facts table.

The order of choice:

1. ``PYOPENCL_CTX``, exactly as pyopencl reads it (``0``, ``0:1``, ...);
2. ``COURSE_DEVICE``: a case-insensitive piece of the platform or device name (``pocl``,
   ``nvidia``, ``oclgrind``);
3. otherwise the first GPU, else a CPU device, else any other device.

Oclgrind is never chosen by default: it is a checker that simulates every work-item and is thousands
of times slower (it also reports itself as a GPU). When a machine shows the same platform twice (the
pip PoCL beside a system PoCL), the newest version wins, whatever order the ICD loader lists them in.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import pyopencl as cl

from . import driver_facts, settings

COURSE_DEVICE_VARIABLE = "COURSE_DEVICE"
OCLGRIND_PLATFORM = "Oclgrind"

NO_PLATFORM_MESSAGE = (
    "No OpenCL platform was found. Run `python -m helpers setup` (or `make lab`) in the course's "
    "folder: it installs PoCL, Intel's CPU runtime and Oclgrind on Linux x86-64, and Intel's CPU "
    "runtime on Windows; on macOS the system's OpenCL is used. Elsewhere, or for more devices, use "
    "conda (`conda env create -f environment.yml`, or environment-macos.yml or "
    "environment-windows.yml) or install your GPU vendor's OpenCL driver. "
    "`python -m helpers devices` lists what is found."
)


INTEL_ICD_VARIABLE = "COURSE_INTEL_ICD"  # 0: leave Intel's runtime unregistered (tests, debugging)


def register_intel_cpu_runtime() -> Path | None:
    """Make Intel's CPU runtime for OpenCL, installed by pip (``intel-opencl-rt``), visible.

    Its wheel puts ``libintelocl.so`` in this environment's ``lib/``, but the ``.icd`` file it ships
    names a placeholder path (``/opt/anaconda1anaconda2anaconda3/lib/libintelocl.so``), so no
    platform appears. pyopencl's bundled ICD loader also reads the ``.icd`` files in its own
    ``.libs`` folder: one there that names the real library is enough (the library finds
    ``libimf``, ``libsvml`` and ``libintlc`` of ``intel-cmplr-lib-rt`` beside itself). Called when
    helpers is imported, before any platform is listed; returns the ``.icd`` file, or None when the
    runtime is not installed here or the folder cannot be written. On Windows the wheel's DLL is
    named in ``OCL_ICD_FILENAMES`` instead (:func:`helpers.platforms.register_intel_windows`).
    """
    if settings.text(INTEL_ICD_VARIABLE) == "0":
        return None
    if sys.platform == "win32":   # the wheel's DLL, through OCL_ICD_FILENAMES (see .platforms)
        from .platforms import register_intel_windows
        return register_intel_windows()
    library = Path(sys.prefix) / "lib" / "libintelocl.so"
    folder = Path(cl.__file__).parent / ".libs"
    if not library.is_file() or not folder.is_dir():
        return None
    icd = folder / "intel-cpu.icd"
    try:
        if not icd.is_file() or icd.read_text().strip() != str(library):
            icd.write_text(f"{library}\n")
        _link_duplicates(library.parent)
    except OSError:
        return None
    return icd


def _link_duplicates(lib: Path) -> None:
    """The wheel stores its two largest libraries twice (``libX.so`` and ``libX.so.VERSION``, about
    290 MB): make the versioned copy a hard link to the other, once."""
    for short in ("libintelocl.so", "libcommon_clang.so"):
        a = lib / short
        for b in lib.glob(f"{short}.*.*"):
            if a.is_file() and b.is_file() and a.stat().st_ino != b.stat().st_ino \
                    and a.stat().st_size == b.stat().st_size and _same_bytes(a, b):
                tmp = b.with_name(b.name + ".link")
                os.link(a, tmp)
                tmp.replace(b)


def _same_bytes(a: Path, b: Path) -> bool:
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(1 << 22), fb.read(1 << 22)
            if x != y:
                return False
            if not x:
                return True


class NoDeviceError(RuntimeError):
    """No usable OpenCL device: the message says how to get one."""


@dataclass(frozen=True)
class DeviceSpec:
    """A device named so that another process finds the same one (indices can differ)."""

    platform: str
    platform_version: str
    device: str

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def of(cls, dev: cl.Device) -> DeviceSpec:
        return cls(dev.platform.name, dev.platform.version, dev.name)

    @property
    def is_oclgrind(self) -> bool:
        return self.platform == OCLGRIND_PLATFORM


def platforms() -> list[cl.Platform]:
    """All OpenCL platforms, or :class:`NoDeviceError` with a sentence that says how to get one."""
    try:
        found = cl.get_platforms()
    except cl.Error as e:  # PLATFORM_NOT_FOUND_KHR from the ICD loader
        raise NoDeviceError(NO_PLATFORM_MESSAGE) from e
    if not found:
        raise NoDeviceError(NO_PLATFORM_MESSAGE)
    return found


def all_devices() -> list[cl.Device]:
    """Every device of every platform, in a stable order (see :func:`_rank`)."""
    devs: list[cl.Device] = []
    for plat in platforms():
        try:
            devs.extend(plat.get_devices())
        except cl.Error:  # a platform with no devices (e.g. a GPU driver without its GPU)
            continue
    return devs


def is_oclgrind(dev: cl.Device) -> bool:
    return dev.platform.name == OCLGRIND_PLATFORM


def _version_key(text: str) -> tuple[int, ...]:
    """Numbers of a version string, for ordering (``PoCL 3.1+debian`` above ``PoCL 3.0-rc2``)."""
    return tuple(int(x) for x in re.findall(r"\d+", text))


# CPU platforms in the order the course prefers them: Intel's runtime, then PoCL (why, and where it
# was measured: helpers/data/drivers.json, docs/platforms.md)
CPU_PREFERENCE = driver_facts.cpu_preference()


def _rank(dev: cl.Device) -> tuple:
    """Sort key: GPUs, then CPUs (Intel's runtime before PoCL), then the rest; Oclgrind last;
    newest platform version first."""
    if is_oclgrind(dev):
        kind = 9
    elif dev.type & cl.device_type.GPU:
        kind = 0
    elif dev.type & cl.device_type.CPU:
        kind = 1
    else:
        kind = 2
    preferred = (CPU_PREFERENCE.index(dev.platform.name) if dev.platform.name in CPU_PREFERENCE
                 else len(CPU_PREFERENCE))
    newest_first = tuple(-x for x in _version_key(dev.platform.version))
    return (kind, preferred, dev.platform.name, newest_first, dev.name)


def find_device(spec: DeviceSpec) -> cl.Device:
    """The device a :class:`DeviceSpec` names (used by child processes)."""
    for dev in all_devices():
        if DeviceSpec.of(dev) == spec:
            return dev
    raise NoDeviceError(f"The device {spec.device!r} on {spec.platform!r} is no longer listed.")


def match_devices(pattern: str) -> list[cl.Device]:
    """Devices whose platform name, platform version or device name contains ``pattern``
    (case-insensitive); the version is where PoCL says "PoCL" (its platform is "Portable Computing
    Language")."""
    needle = pattern.lower()
    return sorted(
        (d for d in all_devices()
         if needle in f"{d.platform.name} / {d.platform.version} / {d.name}".lower()), key=_rank
    )


def choose_device(pattern: str | None = None) -> cl.Device:
    """The device the course runs on (see the module docstring for the order of choice).

    :arg pattern: a piece of a platform or device name; overrides the environment.
    """
    if pattern is None and os.environ.get("PYOPENCL_CTX"):
        ctx = cl.create_some_context(interactive=False)
        return ctx.devices[0]
    pattern = pattern or settings.text(COURSE_DEVICE_VARIABLE) or None
    if pattern:
        found = match_devices(pattern)
        if not found:
            names = ", ".join(f"{d.platform.name} / {d.name}" for d in all_devices())
            raise NoDeviceError(f"No OpenCL device matches {pattern!r}. Devices found: {names}.")
        return found[0]
    candidates = sorted(all_devices(), key=_rank)
    usable = [d for d in candidates if not is_oclgrind(d)]
    if usable:
        return _pass_over_failing(usable)
    if candidates:
        raise NoDeviceError(
            "Only Oclgrind was found: it checks kernels but is thousands of times slower than a "
            "real device. Install PoCL (`pip install pocl-binary-distribution` on Linux x86-64) or "
            f"a GPU driver, or set {COURSE_DEVICE_VARIABLE}=oclgrind to use it anyway."
        )
    raise NoDeviceError(NO_PLATFORM_MESSAGE)


PASSED_OVER: list[str] = []  # the sentences of the last default choice, said by course_context


def _pass_over_failing(ranked: list[cl.Device]) -> cl.Device:
    """The first device that is not known to fail the course's kernels (python -m helpers devices
    --check, or a probe that crashed), saying why each one before it was passed over; the first
    device when every one fails."""
    PASSED_OVER.clear()
    for dev in ranked:
        failed = driver_facts.failures(device_key(dev))
        if not failed:
            return dev
        said = driver_facts.unusable(device_key(dev))
        if said:
            PASSED_OVER.append(f"Passed over {dev.name.strip()} ({driver_name(dev)}): it cannot "
                               f"build even a one-line kernel on this processor ({said}).")
            continue
        shown = ", ".join(failed[:3]) + (f" and {len(failed) - 3} more" if len(failed) > 3 else "")
        PASSED_OVER.append(f"Passed over {dev.name.strip()} ({driver_name(dev)}): it fails "
                           f"{len(failed)} of the course's kernels ({shown}); python -m helpers "
                           f"devices --check shows them.")
    PASSED_OVER.clear()
    return ranked[0]


# a kernel every driver builds: one that cannot, cannot run the course on this processor
ONE_LINE_KERNEL = "__kernel void one(__global float *a) { a[get_global_id(0)] = 1.0f; }"
_BUILDS: dict[str, bool] = {}


def builds_here(dev: cl.Device) -> bool:
    """Whether ``dev``'s driver builds a one-line kernel on this processor (pip's PoCL 3.0 on AMD
    Zen 5 builds none): the device check's record says, else one build in this process, once."""
    key = device_key(dev)
    if key not in _BUILDS:
        if driver_facts.unusable(key):
            _BUILDS[key] = False
        else:
            try:
                cl.Program(cl.Context([dev]), ONE_LINE_KERNEL).build()
                _BUILDS[key] = True
            except Exception:   # pyopencl's errors; a KeyError of its cache on some failures
                _BUILDS[key] = False
    return _BUILDS[key]


def oclgrind_device() -> cl.Device | None:
    """The Oclgrind device, or None when Oclgrind is not installed."""
    try:
        return next((d for d in all_devices() if is_oclgrind(d)), None)
    except NoDeviceError:
        return None


def course_context(
    device: cl.Device | str | None = None, *, quiet: bool = False
) -> tuple[cl.Context, cl.CommandQueue]:
    """A context on the course device and a queue with profiling on; prints the device used.

    :arg device: a device, a piece of its name, or None for :func:`choose_device`.
    """
    dev = device if isinstance(device, cl.Device) else choose_device(device)
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    quiet_builds()
    if not quiet:
        for sentence in PASSED_OVER if device is None else ():
            print(sentence)
        print(f"Running on: {describe(dev)}")
    return ctx, queue


def quiet_builds() -> None:
    """Keep pyopencl's note "Non-empty compiler output encountered" (a driver's chatter: Intel's
    runtime logs every build, NVIDIA's too) from the notebook's cells, for the builds of
    pyopencl.array and of a cell's own cl.Program alike. A learner's real compiler warnings come
    from the check, placed in their file; PYOPENCL_COMPILER_OUTPUT=1 still shows whole logs."""
    import warnings
    warnings.filterwarnings("ignore", message="Non-empty compiler output encountered",
                            category=cl.CompilerWarning)


def describe(dev: cl.Device) -> str:
    """One line naming a device, its platform and driver."""
    return f"{dev.name.strip()} ({dev.platform.name}, driver {dev.driver_version})"


def driver_name(dev: cl.Device) -> str:
    """The driver as a learner names it: ``PoCL 3.0-rc2``, ``Intel(R) OpenCL 2026.22.10.0.01_160000``,
    ``NVIDIA CUDA 580.159.04``."""
    if "PoCL" in dev.platform.version:
        return f"PoCL {dev.driver_version}"
    if dev.driver_version.startswith(dev.platform.name):
        return dev.driver_version
    return f"{dev.platform.name} {dev.driver_version}"


def device_key(dev: cl.Device) -> str:
    """What identifies a device and its driver in the course's caches (indices can change)."""
    return f"{dev.platform.name} | {dev.platform.version} | {dev.name.strip()} | {dev.driver_version}"


def device_type_name(dev: cl.Device) -> str:
    if is_oclgrind(dev):
        return "checker"
    for flag, name in ((cl.device_type.GPU, "GPU"), (cl.device_type.CPU, "CPU"),
                       (cl.device_type.ACCELERATOR, "accelerator")):
        if dev.type & flag:
            return name
    return "other"


def facts(dev: cl.Device) -> dict:
    """The device facts the course uses, as plain values."""
    return {
        "platform": dev.platform.name,
        "platform_version": dev.platform.version,
        "device": dev.name.strip(),
        "type": device_type_name(dev),
        "compute_units": dev.max_compute_units,
        "max_work_group_size": dev.max_work_group_size,
        "max_work_item_sizes": list(dev.max_work_item_sizes),
        "local_mem_bytes": dev.local_mem_size,
        "global_mem_bytes": dev.global_mem_size,
        "max_clock_mhz": dev.max_clock_frequency,
        "opencl_c_version": dev.opencl_c_version,
        "driver_version": dev.driver_version,
    }


def _size(nbytes: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if nbytes < 1024 or unit == "TiB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.4g} {unit}"
        nbytes /= 1024
    raise AssertionError("unreachable")


def device_table(devices: list[cl.Device] | None = None, chosen: cl.Device | None = None) -> str:
    """A text table of every platform and device with the facts the course uses.

    The device the course would choose is marked with ``*``.
    """
    devs = sorted(all_devices(), key=_rank) if devices is None else devices
    if chosen is None:
        try:
            chosen = choose_device()
        except NoDeviceError:
            chosen = None
    header = ["", "platform", "device", "type", "CUs", "max WG", "max WI sizes", "local mem",
              "global mem", "OpenCL C", "driver"]
    rows = [header]
    for d in devs:
        f = facts(d)
        rows.append([
            "*" if chosen is not None and d == chosen else "",
            f["platform"], f["device"], f["type"], str(f["compute_units"]),
            str(f["max_work_group_size"]), "x".join(map(str, f["max_work_item_sizes"])),
            _size(f["local_mem_bytes"]), _size(f["global_mem_bytes"]),
            f["opencl_c_version"].replace("OpenCL C ", "").split(" ")[0], f["driver_version"],
        ])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    note = ("* the device the course uses (PYOPENCL_CTX, then COURSE_DEVICE, then a GPU, then a CPU: "
            "Intel's runtime before PoCL; a device that fails the course's kernels is passed over)")
    return "\n".join(lines + ["", note])
