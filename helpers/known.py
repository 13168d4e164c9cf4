"""What the course's caches know against a device and its driver: the outcome of its last device
check (``python -m helpers devices --check``) and the programs that crashed in a probe. The device
choice reads it to pass over a device that fails the course's kernels; it imports only the cache
and the paths, so that :mod:`helpers.device` may use it.
"""

from __future__ import annotations

import hashlib

from . import cache
from .paths import HELPERS_CL, KERNELS, SOLUTIONS

CHECKS = "device-checks"   # cache document: device key -> the last check's outcome
PROBES = "probes"          # cache document: device key -> program key -> outcome
FAILING = ("wrong", "error", "crashed", "hung")


def course_digest() -> str:
    """A digest of every kernel file the course ships: a device check is valid for these."""
    h = hashlib.sha256()
    for folder in (KERNELS, KERNELS / "studies", SOLUTIONS, HELPERS_CL):
        for f in sorted(folder.glob("*.cl")):
            h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()[:16]


def recorded(key: str) -> dict | None:
    """The last whole device check of the device with key ``key`` (see
    :func:`helpers.device.device_key`) for these kernels, or None."""
    outcome = cache.read(CHECKS).get(key)
    if outcome is None or outcome.get("course") != course_digest():
        return None
    return outcome


def failures(key: str) -> list[str]:
    """What the device with key ``key`` is known to fail of the course's kernels: the failing items
    of its last device check, and programs that crashed in a probe. Empty when nothing is known."""
    found = []
    outcome = recorded(key)
    if outcome is not None:
        found += [f"{name} ({r['status']})" for name, r in outcome["items"].items()
                  if r["status"] in FAILING]
    crashed = [o.get("program", program) for program, o in cache.read(PROBES).get(key, {}).items()
               if not o.get("ok", True)]
    found += [f"{p} (crashed)" for p in crashed if not any(p in f for f in found)]
    return found
