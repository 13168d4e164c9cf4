"""The course's helpers: what the notebooks import.

``from helpers import *`` gives the calls a notebook needs; each lives in the module that owns it.
"""

from __future__ import annotations

from .device import register_intel_cpu_runtime

register_intel_cpu_runtime()  # before any platform is listed: the ICD loader reads its files once

from . import bench, ndrange, plots  # noqa: E402
from .check import KernelCheckFailed, check, run_check  # noqa: E402
from .device import choose_device, course_context, describe, device_table, facts  # noqa: E402
from .kernels import KernelBuildError, build, kernel_path, solutions_on  # noqa: E402

__all__ = [
    "KernelBuildError", "KernelCheckFailed", "bench", "build", "ndrange", "check", "choose_device",
    "course_context", "describe", "device_table", "facts", "kernel_path", "plots", "run_check",
    "solutions_on",
]
