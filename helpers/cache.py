"""The course's cache folder: measured device peaks and the kernels that passed their checks.

``COURSE_CACHE`` names the folder; by default ``$XDG_CACHE_HOME/opencl-course`` (``~/.cache/...``).
Everything in it can be deleted: it is measured or checked again when needed.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from . import settings

CACHE_VARIABLE = "COURSE_CACHE"


def cache_dir() -> Path:
    """The cache folder (created on first use)."""
    base = settings.text(CACHE_VARIABLE) or None
    if base:
        path = Path(base)
    else:
        try:
            xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        except RuntimeError:   # no home (a sandboxed worker's user): as an unreadable cache
            raise OSError("no home folder for the course's cache") from None
        path = Path(xdg) / "opencl-course"
    path.mkdir(parents=True, exist_ok=True)
    return path


def read(name: str) -> dict:
    """The JSON document ``name`` of the cache, or {} when there is none (or it is damaged)."""
    try:
        return json.loads((cache_dir() / f"{name}.json").read_text())
    except (OSError, ValueError):
        return {}


def write(name: str, data: dict) -> None:
    """Replace the JSON document ``name`` (written aside, then renamed: never half a file)."""
    path = cache_dir() / f"{name}.json"
    # one name per process and thread: the grader checks in several threads at once
    tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(json.dumps(data, indent=1))
    tmp.replace(path)
