"""The course's helpers: what the notebooks import.

``from helpers import *`` gives the calls a notebook needs; each lives in the module that owns it.
"""

from __future__ import annotations

from . import bench, ndrange, plots
from .check import KernelCheckFailed, check, run_check
from .device import choose_device, course_context, describe, device_table, facts
from .kernels import KernelBuildError, build, kernel_path, solutions_on

__all__ = [
    "KernelBuildError", "KernelCheckFailed", "bench", "build", "ndrange", "check", "choose_device",
    "course_context", "describe", "device_table", "facts", "kernel_path", "plots", "run_check",
    "solutions_on",
]
