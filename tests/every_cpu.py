"""Run the whole suite once per CPU implementation of OpenCL installed here (PoCL, Intel's runtime):
``python -m tests.every_cpu [--only PATTERN] [PYTEST ARGS]``. ``make test`` calls it.

Each run chooses its device with ``COURSE_DEVICE`` (the platform's name), so every exercise, wrong
kernel, study, demo and notebook is tried on each CPU implementation, not only on the one the course
would pick. A line per device says what passed and how long it took; the exit code is 0 only when
every run passed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from helpers.paths import ROOT


def cpu_platforms(pattern: str | None = None) -> list[str]:
    """The platforms that have a CPU device (Oclgrind, a checker, is not one), best first; with
    ``pattern``, those whose platform name, version or device name holds it (case-insensitive), as
    ``COURSE_DEVICE`` is matched: ``pocl`` is in PoCL's version, not its name."""
    import helpers  # noqa: F401  (registers Intel's runtime before the platforms are listed)
    from helpers.device import _rank, all_devices, device_type_name, match_devices
    wanted = None if pattern is None else {d.platform.name for d in match_devices(pattern)}
    names: list[str] = []
    for dev in sorted(all_devices(), key=_rank):
        if device_type_name(dev) == "CPU" and dev.platform.name not in names and (
                wanted is None or dev.platform.name in wanted):
            names.append(dev.platform.name)
    return names


def cannot_run(platform: str) -> str | None:
    """A sentence when ``platform``'s driver cannot build even a one-line kernel on this processor
    (pip's PoCL 3.0 on AMD Zen 5): its pass would only test the driver's failure, so it is not run,
    and the summary says so (it counts as neither passed nor skipped). The device check's record
    (``make setup`` writes it) says; without one, the check's first item runs now."""
    from helpers import driver_facts
    from helpers.checking.devcheck import FIRST, check_device, unusable_sentence
    from helpers.device import device_key, device_type_name, match_devices
    for dev in match_devices(platform):
        if dev.platform.name == platform and device_type_name(dev) == "CPU":
            outcome = driver_facts.recorded(device_key(dev)) or check_device(dev, [FIRST],
                                                                       progress=False)
            return unusable_sentence(outcome) if outcome.get("unusable") else None
    return None


def side_by_side(pytest_args: list[str]) -> list[str]:
    """pytest-xdist's options that run the test files two at a time where the machine has two cores
    or more: a whole file (a notebook's cells, a module's fixtures and order) stays in one worker.
    None when the caller chose workers (``-n``), asked for one test file's order (``-p no:xdist``)
    or xdist is not installed; ``COURSE_TEST_WORKERS`` sets the number (1: one at a time)."""
    try:
        import xdist  # noqa: F401
    except ImportError:
        return []
    if any(a == "-n" or a.startswith(("-n=", "--numprocesses", "-pno:xdist")) or a == "no:xdist"
           for a in pytest_args):
        return []
    workers = int(os.environ.get("COURSE_TEST_WORKERS", min(os.cpu_count() or 1, 2)))
    return ["-n", str(workers), "--dist", "loadfile"] if workers > 1 else []


def slowest_files(junit: Path, k: int = 10) -> list[str]:
    """The ``k`` test files that took longest, with their summed test times (where a pass's time
    goes: two workers run files side by side, so the sum exceeds the wall time)."""
    per: dict[str, float] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("file") or ".".join(case.get("classname", "?").split(".")[:2])
        per[name] = per.get(name, 0.0) + float(case.get("time") or 0)
    top = sorted(per.items(), key=lambda kv: -kv[1])[:k]
    return [f"  {seconds:7.1f} s  {name}" for name, seconds in top]


def counts(junit: Path) -> dict[str, int]:
    suites = ET.parse(junit).getroot()
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in suites.iter("testsuite"):
        for key in total:
            total[key] += int(suite.get(key, 0))
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="only the CPU platforms whose name has this piece")
    args, pytest_args = parser.parse_known_args(argv)
    platforms = cpu_platforms(args.only)
    if not platforms:
        found = ", ".join(cpu_platforms()) or "none"
        print("error: no CPU implementation of OpenCL found"
              + (f" that matches {args.only!r} (found: {found})" if args.only else
                 " (make lab installs PoCL and Intel's runtime)"), file=sys.stderr)
        return 2
    lines, failed, grand = [], False, {"passed": 0, "failed": 0, "skipped": 0}
    unusable = {p: why for p in platforms if (why := cannot_run(p))}
    for platform, why in unusable.items():
        print(f"\n=== not run on {platform} ===\n{why}", flush=True)
        lines.append(f"{platform:<32} not run: it builds no kernel on this processor")
    platforms = [p for p in platforms if p not in unusable]
    failed = not platforms    # no implementation that runs here: nothing was tested
    with tempfile.TemporaryDirectory(prefix="course-every-cpu-") as tmp:
        for platform in platforms:
            junit = Path(tmp) / "junit.xml"
            env = {**os.environ, "COURSE_DEVICE": platform}
            env.pop("PYOPENCL_CTX", None)
            print(f"\n=== the suite on {platform} ===", flush=True)
            started = time.perf_counter()
            # what does not depend on the device runs once, with the first implementation
            once = ["-m", "not once"] if platform != platforms[0] else []
            code = subprocess.call([sys.executable, "-m", "pytest", f"--junitxml={junit}",
                                    *once, *side_by_side(pytest_args), *pytest_args],
                                   env=env, cwd=ROOT)
            seconds = time.perf_counter() - started
            c = counts(junit) if junit.exists() else {"tests": 0, "failures": 0, "errors": 0,
                                                      "skipped": 0}
            if junit.exists():
                print(f"where {platform}'s time went (test time summed by file):", flush=True)
                print("\n".join(slowest_files(junit)), flush=True)
            bad = c["failures"] + c["errors"]
            passed = c["tests"] - bad - c["skipped"]
            grand["passed"] += passed
            grand["failed"] += bad
            grand["skipped"] += c["skipped"]
            failed |= code != 0 or c["tests"] == 0
            lines.append(f"{platform:<32} {passed:4} passed, {bad} failed, {c['skipped']} skipped "
                         f"in {seconds / 60:.1f} min (pytest exit {code})")
    print("\n=== every CPU implementation ===")
    print("\n".join(lines))
    print(f"{grand['passed']} passed, {grand['failed']} failed, {grand['skipped']} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
