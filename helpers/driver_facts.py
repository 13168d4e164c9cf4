"""What the course knows against a device and its driver. Measured here: the outcome of its last
device check (``python -m helpers devices --check``) and the programs that crashed in a probe, from
the course's caches; the device choice reads them to pass over a device that fails the course's
kernels. Known beforehand: the driver facts of ``helpers/data/drivers.json`` (:func:`drivers`: the
CPU runtimes in the order the course prefers them, the kernels known to give wrong results on a
driver, how Oclgrind names what it cannot simulate, a crash's telling words, the variables a
driver reads), each with why and where it was seen; :func:`platforms_markdown` renders them for
docs/platforms.md (``python tools/platforms_doc.py``). It imports only the cache and the paths, so that
:mod:`helpers.device` may use it.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache as _once

from . import cache
from .paths import DATA, HELPERS_CL, KERNELS, SOLUTIONS

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


def unusable(key: str) -> str | None:
    """What the driver of the device with key ``key`` said when its last device check could not
    build even a one-line kernel (it then runs nothing of the course here), or None."""
    outcome = recorded(key)
    return None if outcome is None else outcome.get("unusable")


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


# --------------------------------------------------------------------------------------------------
# Driver facts known beforehand (helpers/data/drivers.json).

DRIVERS = DATA / "drivers.json"


@_once
def drivers() -> dict:
    """The course's driver facts (``helpers/data/drivers.json``), read once."""
    return json.loads(DRIVERS.read_text(encoding="utf-8"))


def cpu_preference() -> tuple[str, ...]:
    """CPU platforms' names in the order the course prefers them."""
    return tuple(p["platform"] for p in drivers()["cpu_preference"])


def known_wrong() -> dict[str, tuple[str | None, str]]:
    """kernel -> (a piece of the platform version it is wrong on, None for any device; why)."""
    return {k["kernel"]: (k["where"], k["why"]) for k in drivers()["known_wrong"]}


def oclgrind_gap_reasons() -> tuple[str, ...]:
    """The words Oclgrind begins a line with when it cannot simulate something."""
    return tuple(drivers()["oclgrind_gaps"]["reasons"])


def oclgrind_intrinsics() -> dict[str, tuple[str, str]]:
    """LLVM intrinsic (``usub.sat``) -> (what the compiler meant by it, how to write the step so
    that it does not choose it), for those Oclgrind's core may not know."""
    return {i["intrinsic"]: (i["what"], i["instead"])
            for i in drivers()["oclgrind_gaps"]["intrinsics"]}


def crash_words() -> tuple[str, ...]:
    """Words of a dying driver's telling line."""
    return tuple(drivers()["crash_words"]["words"])


def driver_variables() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(names, prefixes) of the environment variables the drivers read."""
    env = drivers()["environment"]
    return (tuple(v for d in env for v in d["variables"]),
            tuple(p for d in env for p in d["prefixes"]))


def platforms_markdown() -> str:
    """docs/platforms.md's driver section, rendered from the driver facts."""
    d = drivers()
    out = ["## What the course knows about drivers", "",
           "Generated from `helpers/data/drivers.json` by `python tools/platforms_doc.py` (edit the "
           "data, then run it; `tests/test_workshop.py` holds this section to the data).", "",
           "### CPU runtimes, in the order the course prefers them", "",
           "| platform | why | seen in |", "|---|---|---|"]
    out += [f"| {p['platform']} ({p['name']}) | {p['why']} | {p['source']} |"
            for p in d["cpu_preference"]]
    out += ["", "### Kernels known to give wrong results", "",
            "A lesson, not a failure: the device check and the studies say why.", "",
            "| kernel | on | why | seen in |", "|---|---|---|---|"]
    out += [f"| `{k['kernel']}` | {k['where'] or 'any device'} | {k['why']} | {k['source']} |"
            for k in d["known_wrong"]]
    gaps = d["oclgrind_gaps"]
    out += ["", "### What Oclgrind cannot simulate", "",
            f"A line of Oclgrind's that begins with {_words(gaps['reasons'])} is a gap: "
            f"{gaps['why']}.", "", "| gap | where | seen in |", "|---|---|---|"]
    out += [f"| `{g['reason']}` | {g['where']} | {g['source']} |" for g in gaps["seen"]]
    out += ["", f"The {gaps['intrinsics_why']}:", "", "| intrinsic | what the compiler meant | "
            "write instead |", "|---|---|---|"]
    out += [f"| `llvm.{i['intrinsic']}` | {i['what']} | {i['instead']} |"
            for i in gaps["intrinsics"]]
    crash = d["crash_words"]
    out += ["", "### A driver's crash", "",
            f"The line quoted holds one of {_words(crash['words'])}: {crash['why']} "
            f"({crash['source']}).", "",
            "### Variables a driver reads", "",
            "A child process that runs kernels keeps these of its parent's environment.", "",
            "| driver | variables | why |", "|---|---|---|"]
    out += [f"| {e['driver']} | {_names(e['variables'], e['prefixes'])} | {e['why']} |"
            for e in d["environment"]]
    return "\n".join(out) + "\n"


def _words(words: list[str]) -> str:
    quoted = [f"`{w}`" for w in words]
    return ", ".join(quoted[:-1]) + f" or {quoted[-1]}" if len(quoted) > 1 else quoted[0]


def _names(variables: list[str], prefixes: list[str]) -> str:
    return ", ".join([f"`{v}`" for v in variables] + [f"`{p}*`" for p in prefixes])

