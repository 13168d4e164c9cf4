"""What a workshop hub does for the course, as functions the hub's configuration calls (and the
tests call too): give every user their own copy of the course at their first start, and point their
Python at it.

Why a copy per user: `kernels/` is each learner's workspace and `helpers` finds `kernels/` next to
itself, so the course cannot be one shared installation. The dependencies (pyopencl, PoCL, Intel's
runtime, Oclgrind, JupyterLab) are installed once, in one environment every user's server runs from.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

SOURCE = Path(os.environ.get("COURSE_SOURCE", "/srv/gpgpu-opencl-course"))
FOLDER = "gpgpu-opencl-course"          # the copy's name in each home
PARTS = ("helpers", "kernels", "solutions", "notebooks", "results", "README.md")

# Environment for every user's server. On a shared machine one learner's OpenCL must not take
# every core: PoCL starts a thread per core for each process, so 30 learners checking at once on
# 16 cores would run 480 threads. Two threads each keep a kernel parallel (the course's lessons
# need it) while the load stays near the core count (docs/instructors.md has the measurements).
ENVIRONMENT = {
    "POCL_MAX_PTHREAD_COUNT": "2",
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
}


def copy_course(home: Path, source: Path = SOURCE, uid: int | None = None,
                gid: int | None = None) -> Path:
    """The user's copy of the course in ``home``, made from ``source`` the first time (never
    overwritten afterwards: it holds the learner's kernels)."""
    target = home / FOLDER
    if not target.exists():
        target.mkdir(parents=True)
        for part in PARTS:
            src = source / part
            if src.is_dir():
                shutil.copytree(src, target / part,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_*"))
            elif src.is_file():
                shutil.copyfile(src, target / part)
        if uid is not None:
            for path in [target, *target.rglob("*")]:
                os.chown(path, uid, gid if gid is not None else -1)
    return target


def user_environment(copy: Path) -> dict[str, str]:
    """What a user's server needs to import *their* helpers and use their kernels."""
    return {**ENVIRONMENT, "PYTHONPATH": str(copy)}


def pre_spawn_hook(spawner) -> None:
    """JupyterHub's pre-spawn hook: copy the course into the user's home, set the environment and
    open JupyterLab on the course's notebooks."""
    import pwd
    entry = pwd.getpwnam(spawner.user.name)
    copy = copy_course(Path(entry.pw_dir), uid=entry.pw_uid, gid=entry.pw_gid)
    spawner.environment.update(user_environment(copy))
    spawner.default_url = f"/lab/tree/{FOLDER}/notebooks/00-host-and-device.ipynb"
