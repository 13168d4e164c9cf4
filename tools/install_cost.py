"""What `make lab` costs before JupyterLab opens: the time of a fresh install (venv, pip, the device
check) and the size of .venv, with and without Intel's CPU runtime.

    python3 tools/install_cost.py --out results/history/install-<machine>.json [--cold]
                                  [--first-check]

Each variant installs into a fresh copy of the repository's committed files (``git archive HEAD``)
in a temporary folder, through the Makefile's own install target (``make setup``), so the figures
are what a learner's first ``make lab`` does. ``--cold`` turns pip's cache off (every wheel
downloaded); without it pip's cache is used as it is on this machine, and the record says so. Sizes
are ``du`` of .venv, which counts a hard-linked file once (the course hard-links the Intel wheel's
duplicated libraries when helpers is first imported, which the device check does).

``--first-check``: as a learner meets it, with Intel's runtime: ``git clone`` of the repository,
``make setup`` (``make lab``'s install), then the first exercise solved (the solution written into
``kernels/float_copy.cl``) and checked, ``python -m helpers check float_copy``; the record holds the
seconds of each step and from the clone to the passed check.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT


def du_mb(path: Path) -> float:
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return round(int(out.stdout.split()[0]) / 1024, 1)


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def install(intel: bool, cold: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="install-cost-") as tmp:
        work = Path(tmp) / "course"
        work.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(work)], input=archive, check=True)
        env = {**os.environ, "COURSE_CACHE": str(Path(tmp) / "cache")}
        if cold:
            env["PIP_NO_CACHE_DIR"] = "1"
        start = time.perf_counter()
        run = subprocess.run(["make", "setup", f"INTEL={1 if intel else 0}",
                              f"PYTHON={sys.executable}"], cwd=work, env=env,
                             capture_output=True, text=True)
        seconds = time.perf_counter() - start
        printed = [line for line in (run.stdout + run.stderr).replace("\r", "\n").splitlines()
                   if line.strip() and not line.lstrip().startswith("checking ")]   # tqdm's bar
        if run.returncode != 0:
            raise SystemExit(f"make setup failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
        pkgs = subprocess.run([str(work / ".venv/bin/python"), "-m", "pip", "list",
                               "--format=json"], capture_output=True, text=True, check=True).stdout
        versions = {p["name"]: p["version"] for p in json.loads(pkgs)
                    if p["name"] in ("pyopencl", "pocl-binary-distribution", "intel-opencl-rt",
                                     "intel-cmplr-lib-rt", "oclgrind", "jupyterlab", "numpy")}
        return {"intel_runtime": intel, "seconds": round(seconds, 1),
                "venv_mb": du_mb(work / ".venv"), "packages": versions,
                "device_check": run.stdout.strip().splitlines()[-12:],
                # what a learner reads scroll past: every line the install printed, and those of
                # them that warn (this machine's own pip configuration's included, named as such)
                "printed_lines": len(printed),
                **split_warnings(printed)}


def first_check(cold: bool) -> dict:
    """Clone, install, solve float_copy, check it: each step's seconds (see the module)."""
    with tempfile.TemporaryDirectory(prefix="first-check-") as tmp:
        env = {**os.environ, "COURSE_CACHE": str(Path(tmp) / "cache")}
        if cold:
            env["PIP_NO_CACHE_DIR"] = "1"
        steps, start = {}, time.perf_counter()
        subprocess.run(["git", "clone", "-q", str(ROOT), str(Path(tmp) / "course")], check=True)
        work = Path(tmp) / "course"
        steps["clone_s"] = round(time.perf_counter() - start, 1)
        run = subprocess.run(["make", "setup", f"PYTHON={sys.executable}"], cwd=work, env=env,
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit(f"make setup failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
        steps["install_s"] = round(time.perf_counter() - start - steps["clone_s"], 1)
        (work / "kernels" / "float_copy.cl").write_bytes((work / "solutions" /
                                                           "float_copy.cl").read_bytes())
        before = time.perf_counter()
        check = subprocess.run([str(work / ".venv/bin/python"), "-m", "helpers", "check",
                                "float_copy"], cwd=work, env=env, capture_output=True, text=True)
        steps["check_s"] = round(time.perf_counter() - before, 1)
        steps["clone_to_passed_check_s"] = round(time.perf_counter() - start, 1)
        steps["check_passed"] = check.returncode == 0
        steps["check_first_line"] = (check.stdout.strip().splitlines() or [""])[0]
        steps["venv_mb"] = du_mb(work / ".venv")
        return steps


def split_warnings(printed: list[str]) -> dict:
    """The lines that warn: the course's own (its packaging, its code), and those of this machine's
    pip configuration (a find-links or index location that does not exist here), kept apart."""
    warns = [line for line in printed if "warn" in line.lower()]
    machine = [line for line in warns if "is ignored: it is neither a file nor a directory" in line]
    return {"warning_lines": [line for line in warns if line not in machine],
            "pip_configuration_warnings": len(machine)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--cold", action="store_true", help="no pip cache: every wheel is downloaded")
    ap.add_argument("--first-check", action="store_true",
                    help="clone, install, solve and check float_copy, as a learner does")
    args = ap.parse_args()
    runs = []
    if args.first_check:
        runs.append(first_check(args.cold))
        print(json.dumps(runs[-1], indent=1), flush=True)
    for intel in (() if args.first_check else (False, True)):
        print(f"installing with INTEL={int(intel)} ...", flush=True)
        runs.append(install(intel, args.cold))
        print(f"  {runs[-1]['seconds']} s, .venv {runs[-1]['venv_mb']} MB", flush=True)
    record = {
        "what": ("a learner's first check: git clone, make setup (pip, the warp model, devices "
                 "--check), float_copy solved and checked" if args.first_check else
                 "make lab before JupyterLab opens: venv, pip install, devices --check"),
        "runs": runs,
        "pip_cache": "off (every wheel downloaded)" if args.cold else "this machine's pip cache",
        # where this machine's pip finds wheels besides the index (a local find-links folder
        # makes "downloaded" a copy from disk): the record says so
        "pip_configuration": subprocess.run([sys.executable, "-m", "pip", "config", "list"],
                                            capture_output=True, text=True).stdout.split("\n"),
        "environment": {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(
                            timespec="seconds"),
                        "cpu": cpu_name(), "cores": os.cpu_count(),
                        "python": platform.python_version(), "host": platform.platform(),
                        "commit": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"],
                                                 capture_output=True, text=True).stdout.strip()},
    }
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
