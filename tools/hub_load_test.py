"""A class through a running JupyterHub's own API: N users' servers started by the hub, then in each
a kernel that runs ``check("sum_ints")`` on the solution, all at once; the check's median and 95th
percentile latency and every failure.

    python tools/hub_load_test.py --hub http://127.0.0.1:8000 --token TOKEN --users u01 u02 ...
        --out results/load-hub-<machine>.json

TOKEN is a hub API token with the scopes admin:users, admin:servers and access:servers (a service's
token, see deploy/README.md). The users must be able to log in to the hub (with PAM: Linux accounts).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import statistics
import time
import urllib.request
import uuid
from pathlib import Path

CODE = """
import time as _t
_t0 = _t.perf_counter()
from helpers.checking import run_check
_r = run_check("sum_ints", solutions=True)
print("RESULT", _r.passed, _t.perf_counter() - _t0)
"""


def api(hub: str, token: str, method: str, path: str, body=None):
    req = urllib.request.Request(hub + path, method=method,
                                 headers={"Authorization": f"token {token}"},
                                 data=json.dumps(body).encode() if body is not None else None)
    with urllib.request.urlopen(req, timeout=120) as r:
        raw = r.read()
        return json.loads(raw) if raw else None


def start_server(hub: str, token: str, user: str) -> float:
    t0 = time.perf_counter()
    try:
        api(hub, token, "POST", f"/hub/api/users/{user}")
    except urllib.error.HTTPError:
        pass  # the user exists
    try:
        api(hub, token, "POST", f"/hub/api/users/{user}/server")
    except urllib.error.HTTPError:
        pass  # already running
    for _ in range(300):
        if api(hub, token, "GET", f"/hub/api/users/{user}")["servers"].get("", {}).get("ready"):
            return time.perf_counter() - t0
        time.sleep(0.5)
    raise TimeoutError(f"{user}'s server did not start")


async def run_code(hub: str, token: str, user: str, code: str, timeout: float) -> dict:
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect
    kernel = await asyncio.to_thread(api, hub, token, "POST", f"/user/{user}/api/kernels",
                                     {"name": "python3"})
    ws_url = hub.replace("http", "ws", 1) + f"/user/{user}/api/kernels/{kernel['id']}/channels"
    ws = await websocket_connect(HTTPRequest(ws_url, headers={"Authorization": f"token {token}"}))
    msg_id = uuid.uuid4().hex
    await ws.write_message(json.dumps({
        "header": {"msg_id": msg_id, "username": user, "session": uuid.uuid4().hex,
                   "msg_type": "execute_request", "version": "5.3"},
        "parent_header": {}, "metadata": {}, "channel": "shell",
        "content": {"code": code, "silent": False, "store_history": False,
                    "user_expressions": {}, "allow_stdin": False}}))
    out, error = "", None
    t0 = time.perf_counter()
    while True:
        left = timeout - (time.perf_counter() - t0)
        m = json.loads(await asyncio.wait_for(ws.read_message(), timeout=max(left, 1)))
        if m.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if m["msg_type"] == "stream":
            out += m["content"]["text"]
        elif m["msg_type"] == "error":
            error = f"{m['content']['ename']}: {m['content']['evalue']}"
        elif m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            break
    ws.close()
    await asyncio.to_thread(api, hub, token, "DELETE",
                            f"/user/{user}/api/kernels/{kernel['id']}")
    return {"output": out, "error": error, "seconds": time.perf_counter() - t0}


async def main_async(args) -> dict:
    starts = await asyncio.gather(*(asyncio.to_thread(start_server, args.hub, args.token, u)
                                    for u in args.users))
    runs = await asyncio.gather(*(run_code(args.hub, args.token, u, CODE, args.limit)
                                  for u in args.users), return_exceptions=True)
    learners = []
    for user, start, run in zip(args.users, starts, runs, strict=True):
        row = {"user": user, "server_start_seconds": start}
        if isinstance(run, BaseException):
            row["failure"] = repr(run)
        else:
            line = next((x for x in run["output"].splitlines() if x.startswith("RESULT")), "")
            if run["error"] or not line:
                row["failure"] = run["error"] or run["output"][-500:]
            else:
                _, passed, seconds = line.split()
                row.update(passed=passed == "True", check_seconds=float(seconds))
                if not row["passed"]:
                    row["failure"] = "the solution did not pass"
        learners.append(row)
    checks = [r["check_seconds"] for r in learners if "check_seconds" in r]
    s = sorted(checks)
    return {"users": len(args.users), "per_user": learners,
            "failures": [r for r in learners if "failure" in r],
            "check_median_seconds": statistics.median(checks) if checks else None,
            "check_p95_seconds": s[round(0.95 * (len(s) - 1))] if s else None,
            "server_start_median_seconds": statistics.median(starts)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hub", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--users", nargs="+", required=True)
    ap.add_argument("--limit", type=float, default=900.0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    result = asyncio.run(main_async(args))
    result["environment"] = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(
                                 timespec="seconds"),
                             "cores": os.cpu_count(), "python": platform.python_version(),
                             "host": platform.platform(), "hub": args.hub}
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"{result['users']} users: check median {result['check_median_seconds']:.1f} s, 95th "
          f"percentile {result['check_p95_seconds']:.1f} s; servers started in "
          f"{result['server_start_median_seconds']:.1f} s (median); "
          f"{len(result['failures'])} failure(s)")
    return 1 if result["failures"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
