"""The class view under a class's load (issue 24): N learners' servers in a local JupyterHub with the
course's deploy configuration (tools/local_hub.py: dummy login, servers run by this account), each
learner's notebook kernel checking ``sum_ints``'s solution, all at once: a first round (every
kernel's first check), then warm rounds alternately with the class view's events on and off (off:
the kernel's COURSE_CLASS_URL removed, so nothing is sent), to compare the check's latency; then
whether every event sent was stored, and how long the instructor's page takes (median of 20 GETs
with an instructor's token).

    python tools/class_view_load.py --users 30 --rounds 2 --out results/history/class-view-load-<machine>.json
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hub_load_test import Kernel, api, outcome, start_server, summary  # noqa: E402
from local_hub import local_hub  # noqa: E402

CHECK = """
import os, time as _t
{switch}
_t0 = _t.perf_counter()
from helpers.checking.checker import run_check_printing
_r, _ = run_check_printing("sum_ints", solutions=True)
print("RESULT", _r.passed, _t.perf_counter() - _t0)
"""
ON = "os.environ['COURSE_CLASS_URL'] = os.environ.get('COURSE_CLASS_URL') or _saved_url"
OFF = "globals().setdefault('_saved_url', os.environ.get('COURSE_CLASS_URL')); " \
      "os.environ.pop('COURSE_CLASS_URL', None)"
FLUSH = "from helpers.hub import events; print('SENT', events.flush(30), events.delivered, " \
        "events.dropped)"


async def rounds(hub, users: list[str], n_rounds: int) -> dict:
    starts = await asyncio.gather(*(asyncio.to_thread(start_server, hub.base, hub.token, u)
                                    for u in users))
    kernels = await asyncio.gather(*(Kernel(hub.base, hub.token, u).open() for u in users))
    # the first check of each kernel, then warm rounds: on, off, on, off, ...
    plan = [("first", "_saved_url = os.environ.get('COURSE_CLASS_URL')")]
    for i in range(n_rounds):
        plan += [(f"on {i + 1}", ON), (f"off {i + 1}", OFF)]
    out = {}
    for name, switch in plan:
        runs = await asyncio.gather(*(k.run(CHECK.format(switch=switch), 900) for k in kernels),
                                    return_exceptions=True)
        out[name] = [outcome(r) for r in runs]
        s = summary(out[name])
        print(f"{name:8} median {s['check_median_seconds']} s, p95 {s['check_p95_seconds']} s, "
              f"failures: {[r['failure'][:200] for r in out[name] if 'failure' in r][:3]}",
              flush=True)
        await asyncio.sleep(1.0)
    flushed = await asyncio.gather(*(k.run(ON + "\n" + FLUSH, 60) for k in kernels),
                                   return_exceptions=True)
    await asyncio.gather(*(k.close() for k in kernels), return_exceptions=True)
    return {"rounds": out, "server_starts": starts,
            "flush": [f["output"].strip() if isinstance(f, dict) else repr(f)[:200]
                      for f in flushed]}


def page_times(hub, repeats: int = 20) -> list[float]:
    token = api(hub.base, hub.token, "POST", "/hub/api/users/teacher/tokens",
                {"note": "class view load test"})["token"]
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        req = urllib.request.Request(hub.base + "/services/class-view/",
                                     headers={"Authorization": f"token {token}"})
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read().decode()
        times.append(time.perf_counter() - t)
        assert 'id="matrix"' in body, body[:500]
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=2, help="warm rounds with events on (and off)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    users = [f"u{i:02d}" for i in range(1, args.users + 1)]
    with tempfile.TemporaryDirectory() as tmp, local_hub(Path(tmp), {
            "COURSE_INSTRUCTORS": "teacher"}) as hub:
        # (the hub made the user teacher: COURSE_INSTRUCTORS names the group's members)
        result = asyncio.run(rounds(hub, users, args.rounds))
        pages = page_times(hub)
        stored = sqlite3.connect(hub.db).execute("SELECT COUNT(*) FROM events").fetchone()[0]
    per_round = {name: summary(rows) | {"failures": sum("failure" in r for r in rows)}
                 for name, rows in result["rounds"].items()}
    sent = sum(len(rows) for name, rows in result["rounds"].items() if not name.startswith("off"))
    on = [r["check_seconds"] for name, rows in result["rounds"].items()
          if name.startswith("on") for r in rows if "check_seconds" in r]
    off = [r["check_seconds"] for name, rows in result["rounds"].items()
           if name.startswith("off") for r in rows if "check_seconds" in r]
    record = {
        "what": "N learners' notebook kernels in a local JupyterHub (deploy config, tools/local_hub.py)"
                " checking sum_ints's solution all at once: the first round, then warm rounds with "
                "the class view's events on and off; events sent vs stored; the page's time",
        "users": args.users, "per_round": per_round,
        "warm_events_on": {"median_s": statistics.median(on), "p95_s": sorted(on)[
            round(0.95 * (len(on) - 1))]} if on else None,
        "warm_events_off": {"median_s": statistics.median(off), "p95_s": sorted(off)[
            round(0.95 * (len(off) - 1))]} if off else None,
        "events_sent": sent, "events_stored": stored, "flush": sorted(set(result["flush"])),
        "page_seconds": {"median": statistics.median(pages), "max": max(pages),
                         "repeats": len(pages)},
        "server_start_median_s": statistics.median(result["server_starts"]),
        "written_by": "python tools/class_view_load.py " + " ".join(sys.argv[1:]),
        "environment": {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"), "cores": os.cpu_count(), "python": platform.python_version(),
            "host": platform.platform()}}
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    for name, s in per_round.items():
        print(f"{name:8} median {s['check_median_seconds']:.2f} s, p95 {s['check_p95_seconds']:.2f}"
              f" s, {s['failures']} failure(s)")
    print(f"events sent {sent}, stored {stored}; page median {record['page_seconds']['median']:.3f}"
          f" s (max {record['page_seconds']['max']:.3f})")
    return 0 if stored == sent and not any(s["failures"] for s in per_round.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
