"""A class through a running JupyterHub's own API: N users' servers started by the hub, then in each
a kernel that runs ``check("sum_ints")`` on the solution, all at once; the check's median and 95th
percentile latency and every failure. ``--warm``: as in a class, each user's notebook kernel checks
once (all at once: the first checks, reported too), then all check again at the same moment.

    python tools/hub_load_test.py --hub http://127.0.0.1:8000 --token TOKEN --users u01 u02 ...
        --out results/history/load-hub-<machine>.json

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


class Kernel:
    """One Jupyter kernel in a user's server, reached through the hub: code runs in it, in turn."""

    def __init__(self, hub: str, token: str, user: str):
        self.hub, self.token, self.user = hub, token, user

    async def open(self) -> Kernel:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect
        self.kernel = await asyncio.to_thread(api, self.hub, self.token, "POST",
                                              f"/user/{self.user}/api/kernels", {"name": "python3"})
        url = (self.hub.replace("http", "ws", 1)
               + f"/user/{self.user}/api/kernels/{self.kernel['id']}/channels")
        self.ws = await websocket_connect(HTTPRequest(   # 30 kernels starting on 2 cores: slow
            url, headers={"Authorization": f"token {self.token}"}, connect_timeout=180,
            request_timeout=180))
        self.session = uuid.uuid4().hex
        return self

    async def run(self, code: str, timeout: float) -> dict:
        msg_id = uuid.uuid4().hex
        await self.ws.write_message(json.dumps({
            "header": {"msg_id": msg_id, "username": self.user, "session": self.session,
                       "msg_type": "execute_request", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": False,
                        "user_expressions": {}, "allow_stdin": False}}))
        out, error = "", None
        t0 = time.perf_counter()
        while True:
            left = timeout - (time.perf_counter() - t0)
            m = json.loads(await asyncio.wait_for(self.ws.read_message(), timeout=max(left, 1)))
            if m.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if m["msg_type"] == "stream":
                out += m["content"]["text"]
            elif m["msg_type"] == "error":
                error = f"{m['content']['ename']}: {m['content']['evalue']}"
            elif m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                break
        return {"output": out, "error": error, "seconds": time.perf_counter() - t0}

    async def close(self) -> None:
        self.ws.close()
        await asyncio.to_thread(api, self.hub, self.token, "DELETE",
                                f"/user/{self.user}/api/kernels/{self.kernel['id']}")


def outcome(run) -> dict:
    """A round's row for one user: the check's time and verdict, or why there is none."""
    if isinstance(run, BaseException):
        return {"failure": repr(run)}
    line = next((x for x in run["output"].splitlines() if x.startswith("RESULT")), "")
    if run["error"] or not line:
        return {"failure": run["error"] or run["output"][-500:]}
    _, passed, seconds = line.split()
    row = {"passed": passed == "True", "check_seconds": float(seconds)}
    if not row["passed"]:
        row["failure"] = "the solution did not pass"
    return row


def summary(rows: list[dict]) -> dict:
    checks = sorted(r["check_seconds"] for r in rows if "check_seconds" in r)
    return {"check_median_seconds": statistics.median(checks) if checks else None,
            "check_p95_seconds": checks[round(0.95 * (len(checks) - 1))] if checks else None}


async def main_async(args) -> dict:
    starts = await asyncio.gather(*(asyncio.to_thread(start_server, args.hub, args.token, u)
                                    for u in args.users))
    kernels = await asyncio.gather(*(Kernel(args.hub, args.token, u).open() for u in args.users))
    rounds = ["first", "warm"] if args.warm else ["first"]
    per_round = {}
    for name in rounds:      # every user's check at once; the next round when all are done
        runs = await asyncio.gather(*(k.run(CODE, args.limit) for k in kernels),
                                    return_exceptions=True)
        per_round[name] = [outcome(r) for r in runs]
    await asyncio.gather(*(k.close() for k in kernels), return_exceptions=True)
    learners = []
    for i, (user, start) in enumerate(zip(args.users, starts, strict=True)):
        row = {"user": user, "server_start_seconds": start, **per_round[rounds[-1]][i]}
        if args.warm:
            row["first"] = per_round["first"][i]
        learners.append(row)
    failures = [{"user": u, "round": name, "failure": rows[i]["failure"]}
                for name, rows in per_round.items() for i, u in enumerate(args.users)
                if "failure" in rows[i]]
    result = {"users": len(args.users), "per_user": learners, "failures": failures,
              **summary(per_round[rounds[-1]]),
              "server_start_median_seconds": statistics.median(starts)}
    if args.warm:
        result["warm"] = True
        result["first_checks"] = summary(per_round["first"])
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hub", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--users", nargs="+", required=True)
    ap.add_argument("--limit", type=float, default=900.0)
    ap.add_argument("--warm", action="store_true",
                    help="as in a class: every user checks once (all at once, reported as the "
                         "first checks), then all check again at the same moment in the same "
                         "notebook kernel (the check's latency reported)")
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
    if args.warm:
        first = result["first_checks"]
        print(f"first checks: median {first['check_median_seconds']:.1f} s, 95th percentile "
              f"{first['check_p95_seconds']:.1f} s")
    return 1 if result["failures"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
