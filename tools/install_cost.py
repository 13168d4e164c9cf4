"""What `make lab` costs before JupyterLab opens: the time of a fresh install (venv, pip, the device
check) and the size of .venv, with and without Intel's CPU runtime.

    python3 tools/install_cost.py --out results/history/install-<machine>.json [--cold]

Each variant installs into a fresh copy of the repository's committed files (``git archive HEAD``)
in a temporary folder, through the Makefile's own install target (``make setup``), so the figures
are what a learner's first ``make lab`` does. ``--cold`` turns pip's cache off (every wheel
downloaded); without it pip's cache is used as it is on this machine, and the record says so. Sizes
are ``du`` of .venv, which counts a hard-linked file once (the course hard-links the Intel wheel's
duplicated libraries when helpers is first imported, which the device check does).
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
    args = ap.parse_args()
    runs = []
    for intel in (False, True):
        print(f"installing with INTEL={int(intel)} ...", flush=True)
        runs.append(install(intel, args.cold))
        print(f"  {runs[-1]['seconds']} s, .venv {runs[-1]['venv_mb']} MB", flush=True)
    record = {
        "what": "make lab before JupyterLab opens: venv, pip install, devices --check",
        "runs": runs,
        "pip_cache": "off (every wheel downloaded)" if args.cold else "this machine's pip cache",
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
