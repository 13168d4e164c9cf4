"""The course's helpers: what the notebooks import.

``from helpers import *`` gives the calls a notebook needs; each lives in the module that owns it.
In a notebook, ``import helpers`` also registers the ``%%kernel NAME`` cell magic (:mod:`.magic`).
Names are handed on lazily (PEP 562): ``import helpers`` loads only the device module (to register
Intel's CPU runtime), and a process that only checks kernels never imports matplotlib or
ipywidgets (the figures come in with ``helpers.plots`` when a notebook first uses them).
"""

from __future__ import annotations

from .lazy import hand_on

try:
    from .device import register_intel_cpu_runtime
except ModuleNotFoundError as e:  # before the install (python -m helpers setup): no pyopencl yet
    if e.name != "pyopencl":
        raise
else:
    register_intel_cpu_runtime()  # before any platform is listed: the ICD loader reads them once
    from .magic import register_in_ipython
    register_in_ipython()         # %%kernel NAME in a notebook (see helpers.magic)
    from .hub import events as _events
    if _events.destination() is not None:
        _events.register()        # in the course's hub: each verdict goes to the class view too

# name -> the module that owns it (a module's own name: the module itself)
_OWNERS = {
    "bench": "bench", "ndrange": "ndrange", "plots": "plots",
    "check": "checking", "run_check": "checking", "KernelCheckFailed": "checking",
    "CheckOptions": "checking",
    "choose_device": "device", "course_context": "device", "describe": "device",
    "device_table": "device", "facts": "device",
    "KernelBuildError": "kernels", "build": "kernels", "kernel_path": "kernels",
    "solutions_on": "kernels",
    # the studies the notebooks import by the package's name
    "lessons": "studies.lessons", "sgemm": "studies.sgemm", "transfers": "studies.transfers",
    "tuning": "studies.tuning",
}

__all__ = sorted(_OWNERS)
__getattr__, __dir__ = hand_on(__name__, _OWNERS, globals())
