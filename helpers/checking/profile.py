"""Where a check's time goes: ``python -m helpers profile check NAME [--kernel K] [--json]``.

Cold: one check in a fresh ``python -m helpers check``-like process, as a shell or the first check of
a notebook pays it (Python's start and imports, the device's choice, each pass's worker start, its
build and its cases, the rest). Warm: the same check again in this process, as a notebook's later
checks are, after a pause like a learner's between two checks (the workers started after the last
check get ready meanwhile); the median of ``repeats``. The device and Oclgrind passes run side by
side, so their phases overlap and the total is not their sum.

CPU time counts this process, its reaped children and its live workers (read from ``/proc`` where
there is one), so that the work of a warm worker is not left out.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ..paths import ROOT

PAUSE = 1.0   # seconds between two warm checks, as a learner edits


def cpu_seconds() -> float:
    """CPU seconds of this process, its reaped children and its live children."""
    t = os.times()
    total = t.user + t.system + t.children_user + t.children_system
    if not Path("/proc").is_dir():
        return total
    me, tick = str(os.getpid()), os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:   # ppid; then utime, stime are fields 14 and 15 of stat (1-based)
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def phases(report) -> dict[str, float]:
    """Seconds per phase of each pass of a check (``device: build``, ``Oclgrind: cases``, ...):
    the wait for its worker (0 when it was warm), the build, the cases, and what followed."""
    out: dict[str, float] = {}
    passes = [("device", report.device_pass, "marks"), ("Oclgrind", report.oclgrind_pass, "marks"),
              ("Oclgrind, larger cases", report.oclgrind_pass, "more_marks"),
              ("speed", report.speed_pass, "marks")]
    for label, p, which in passes:
        m = getattr(p.timing, which, None) if p is not None else None
        if not m:
            continue
        asked, ended = m["asked"], m["ended"]
        ready = max(m.get("ready", asked), asked)
        built = m.get("built", m.get("build_error", ended))
        done = m.get("done", ended)
        out[f"{label}: waiting for its worker"] = ready - asked
        out[f"{label}: build"] = max(built - ready, 0.0)
        out[f"{label}: cases" if label != "speed" else "speed: timing"] = max(done - built, 0.0)
    return out


def one(name: str, kernel: str | None, device: str | None, solutions: bool | None) -> dict:
    """A check in this process, with its phases and the time before it (imports, device)."""
    t0 = time.perf_counter()
    from ..device import choose_device
    from .checker import run_check
    t1 = time.perf_counter()
    dev = choose_device(device)
    t2 = time.perf_counter()
    cpu = cpu_seconds()
    report = run_check(name, kernel, solutions=solutions, device=device)
    t3 = time.perf_counter()
    return {"passed": report.passed, "imports": t1 - t0, "device choice": t2 - t1,
            "check": t3 - t2, "phases": phases(report), "cpu": cpu_seconds() - cpu,
            "device": dev.name.strip(), "kernel": str(report.kernel_path),
            "cases": ran(report)}


def ran(report) -> dict[str, list[str]]:
    """The cases each pass ran (their labels), the device's it could not launch marked so."""
    out = {}
    for label, p in (("device", report.device_pass), ("Oclgrind", report.oclgrind_pass)):
        if p is not None:
            skipped = set(p.not_run())
            out[label] = [c.label() + (" (not launched)" if i in skipped else "")
                          for i, c in enumerate(p.cases) if i in p.results or i in skipped]
    return out


def profile_check(name: str, kernel: str | None = None, device: str | None = None,
                  solutions: bool | None = None, repeats: int = 5) -> dict:
    """The cold check (a fresh process) and the warm one (this process), see the module's text."""
    from ..timing import environment
    cmd = [sys.executable, "-m", "helpers", "profile", "check", name, "--one", "--json"]
    cmd += ["--kernel", kernel] if kernel else []
    cmd += ["--device", device] if device else []
    cmd += ["--solutions"] if solutions else []
    before = os.times()
    t = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True, check=False,
                         cwd=ROOT)
    wall = time.perf_counter() - t
    after = os.times()
    if run.returncode != 0:
        raise RuntimeError(f"the cold check failed to run:\n{run.stderr.strip()}")
    cold = json.loads(run.stdout)
    inner = cold["imports"] + cold["device choice"] + cold["check"]
    cold.update(wall=wall, cpu=(after.children_user + after.children_system)
                - (before.children_user + before.children_system))
    cold["python start"] = max(wall - inner, 0.0)
    one(name, kernel, device, solutions)   # the first check of this process: not counted
    warm = []
    for _ in range(repeats):
        time.sleep(PAUSE)
        warm.append(one(name, kernel, device, solutions))
    from ..device import choose_device
    from .options import default_oclgrind_workers
    return {"what": "where a check's time goes", "exercise": name, "kernel": cold["kernel"],
            "passed": cold["passed"], "cold": cold, "warm": warm, "pause_s": PAUSE,
            "oclgrind_workers": default_oclgrind_workers(),
            "environment": environment(choose_device(device))}


def table(record: dict) -> str:
    cold, warm = record["cold"], record["warm"]

    def med(key: str, sub: str | None = None) -> float | None:
        vals = [w[key][sub] if sub else w[key] for w in warm if (sub is None or sub in w[key])]
        return statistics.median(vals) if vals else None

    rows = [("Python's start, imports (numpy, pyopencl)", cold["python start"] + cold["imports"],
             None),
            ("choosing the device", cold["device choice"], med("device choice"))]
    for k in cold["phases"] | {k: 0 for w in warm for k in w["phases"]}:
        rows.append((k, cold["phases"].get(k), med("phases", k)))
    rows.append(("the check, from call to verdict", cold["check"], med("check")))
    lines = [f"Where a check of {record['exercise']} ({record['kernel']}) goes, on "
             f"{record['environment']['device']['device']} "
             f"({'passed' if record['passed'] else 'failed'}):",
             f"  {'':44} {'cold':>8} {'warm':>8}"]
    def fmt(v: float | None) -> str:
        return f"{v:7.3f}s" if v is not None else f"{'-':>8}"

    for label, c, w in rows:
        lines.append(f"  {label:44} {fmt(c)} {fmt(w)}")
    lines.append(f"  {'wall time, all of it':44} {cold['wall']:7.3f}s {med('check'):7.3f}s")
    cpu_warm = statistics.mean(w["cpu"] for w in warm)
    lines.append(f"  {'CPU time (this process and its workers)':44} {cold['cpu']:7.3f}s "
                 f"{cpu_warm:7.3f}s")
    for label, cases in warm[-1].get("cases", {}).items():
        lines.append(f"  {label} cases ({len(cases)}): " + "; ".join(cases))
    lines.append(f"  cold: a fresh process; warm: the median of {len(warm)} checks in one process, "
                 f"{record['pause_s']:g} s apart (the CPU time is their mean). The device and "
                 f"Oclgrind passes run side by side: their phases overlap."
                 + (f" Oclgrind's small cases (and the widest) were dealt to "
                    f"{record['oclgrind_workers']} workers." if record.get("oclgrind_workers", 1)
                    > 1 else ""))
    return "\n".join(lines)
