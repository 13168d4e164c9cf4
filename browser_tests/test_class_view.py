"""The class view in a real JupyterHub (issue 24): the deploy configuration (deploy/jupyterhub/), with
a dummy login and every server run by this account (JupyterHub's SimpleLocalProcessSpawner) instead
of PAM's accounts. Two learners' servers check in their notebook kernels (one passes after a
failure, one fails twice: stuck by the test's rule of 2 failed checks and 0 minutes); the service's
SQLite holds their events under the names the hub gave their tokens; Chromium, logged in as the
instructor, sees the matrix, the stuck learner and the common mistake; a learner's browser is
refused the page. Before that, the service's answers to every kind of token, bad event and flood.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from test_lab import ROOT, chromium  # noqa: E402  (pytest puts this folder on the path)

sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "deploy" / "jupyterhub"))

from helpers.hub.service import REPORT_SCOPE, make_app  # noqa: E402
from helpers.hub.store import Store  # noqa: E402

EXERCISES = ["float_copy", "sum_ints", "erosion_1d_local"]


def ev(exercise="float_copy", passed=False, mistake="data race"):
    return {"exercise": exercise, "passed": passed, "mistake": mistake, "seconds": 1.5,
            "kernel": "ab12"}


class _Auth:
    """The hub's answers for tokens, as HubAuth.user_for_token gives them."""

    models = {"ada-server": {"kind": "user", "name": "ada", "scopes": [REPORT_SCOPE]},
              "bob-server": {"kind": "user", "name": "bob", "scopes": [REPORT_SCOPE]},
              "no-scope": {"kind": "user", "name": "eve", "scopes": ["read:users:name!user"]},
              "a-service": {"kind": "service", "name": "culler", "scopes": [REPORT_SCOPE]}}

    def get_token(self, handler, in_cookie=True):
        assert not in_cookie                      # a page's cookie never posts an event
        h = handler.request.headers.get("Authorization", "")
        return h.split(" ", 1)[1] if h.startswith("token ") else ""

    async def user_for_token(self, token, sync=True):
        return self.models.get(token)


def test_the_service_stores_events_as_the_tokens_owner_and_refuses_the_rest(tmp_path):
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest
    from tornado.httpserver import HTTPServer
    from tornado.netutil import bind_sockets
    store = Store(tmp_path / "c.sqlite")

    async def scenario() -> list[int]:
        app = make_app(store, "/services/class-view/", {"exercise_order": EXERCISES, "rate": 5},
                       hub_auth=_Auth())
        sockets = bind_sockets(0, "127.0.0.1")
        server = HTTPServer(app)
        server.add_sockets(sockets)
        port = sockets[0].getsockname()[1]
        client = AsyncHTTPClient()

        async def post(token: str | None, body) -> int:
            headers = {"Authorization": f"token {token}"} if token else {}
            r = await client.fetch(HTTPRequest(
                f"http://127.0.0.1:{port}/services/class-view/events", method="POST",
                headers=headers, body=body if isinstance(body, bytes) else json.dumps(body)),
                raise_error=False)
            return r.code
        codes = [await post("ada-server", ev()),
                 await post("bob-server", ev(passed=True, mistake="")),
                 await post(None, ev()), await post("forged", ev()), await post("no-scope", ev()),
                 await post("a-service", ev()), await post("ada-server", ev(exercise="nope")),
                 await post("ada-server", b"x" * 5000)]
        codes += [await post("bob-server", ev()) for _ in range(5)]   # the 5th is one too many
        server.stop()
        return codes
    codes = asyncio.run(scenario())
    assert codes[:8] == [200, 200, 403, 403, 403, 403, 422, 413]
    assert codes[8:] == [200, 200, 200, 200, 429]
    stored = store.events()
    assert [(e["learner"], e["passed"]) for e in stored[:2]] == [("ada", False), ("bob", True)]
    assert len(stored) == 6                       # nothing of the refused ones


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    from local_hub import local_hub
    work = tmp_path_factory.mktemp("hub")
    with local_hub(work, {
            "COURSE_INSTRUCTORS": "teacher", "COURSE_STUCK_MINUTES": "0",
            "COURSE_STUCK_FAILS": "2", "COURSE_CLASS_REFRESH": "2"}) as h:
        yield h
    left = []          # the users' servers and kernels end with the hub (they once outlived it)
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if str(entry.joinpath("cwd").readlink()).startswith(str(work)):
                left.append(entry.joinpath("cmdline").read_bytes().replace(b"\0", b" ")[:120])
        except OSError:
            continue
    assert left == [], left


def _run_in_notebooks(base: str, token: str, code: dict[str, str]) -> dict[str, dict]:
    from hub_load_test import Kernel, start_server

    async def go():
        await asyncio.gather(*(asyncio.to_thread(start_server, base, token, u) for u in code))
        kernels = {u: await Kernel(base, token, u).open() for u in code}
        runs = await asyncio.gather(*(kernels[u].run(c, 600) for u, c in code.items()))
        await asyncio.gather(*(k.close() for k in kernels.values()))
        return dict(zip(code, runs, strict=True))
    return asyncio.run(go())


CHECKS = """
from helpers import check
from helpers.hub import events
for solutions in {plan}:
    try:
        check("float_copy", solutions=solutions)
    except Exception as e:
        print("FAILED", type(e).__name__)
print("SENT", events.flush(20), events.delivered, events.dropped)
"""


def test_the_instructor_sees_the_class_live_and_a_learner_is_refused(hub):
    base, db = hub.base, hub.db
    runs = _run_in_notebooks(base, hub.token, {"ada": CHECKS.format(plan=[False, True]),
                                    "bob": CHECKS.format(plan=[False, False])})
    for user, run in runs.items():
        assert run["error"] is None, (user, run)
        assert "SENT True" in run["output"], (user, run["output"][-2000:])
    rows = sqlite3.connect(db).execute(
        "SELECT learner, exercise, passed, mistake FROM events ORDER BY id").fetchall()
    assert sorted(rows) == sorted([("ada", "float_copy", 0, rows[0][3]),
                                   ("ada", "float_copy", 1, ""),
                                   ("bob", "float_copy", 0, rows[0][3]),
                                   ("bob", "float_copy", 0, rows[0][3])]), rows
    mistake = rows[0][3]
    assert mistake                                 # the skeleton's failure has a name

    # nobody without a learner's server token may post
    req = urllib.request.Request(hub.view + "events",
                                 data=json.dumps(ev()).encode(), method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(req, timeout=10)
    assert refused.value.code == 403

    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            teacher = browser.new_page()
            teacher.goto(f"{base}/services/class-view/")
            teacher.fill("input[name=username]", "teacher")
            teacher.fill("input[name=password]", "any")
            teacher.click("input[type=submit], button[type=submit]")
            teacher.wait_for_selector("#matrix", timeout=60_000)
            matrix = teacher.inner_text("#matrix")
            assert "ada" in matrix and "bob" in matrix and "teacher" not in matrix
            assert "bob" in teacher.inner_text("#stuck") and \
                "float_copy" in teacher.inner_text("#stuck")
            assert "ada" not in teacher.inner_text("#stuck")
            assert f"{mistake} (1)" in teacher.inner_text("#mistakes")   # bob still trying
            assert teacher.locator("td.stuck").count() == 1
            if os.environ.get("CLASS_VIEW_SCREENSHOT"):
                teacher.screenshot(path=os.environ["CLASS_VIEW_SCREENSHOT"], full_page=True)
            # ada's pass counts once the hub's own re-check of her kernel has verified it
            deadline = time.monotonic() + 180
            while True:
                csv_text = teacher.request.get(f"{base}/services/class-view/class.csv").text()
                if any(line.startswith("ada,passed,") for line in csv_text.splitlines()) or \
                        time.monotonic() > deadline:
                    break
                time.sleep(2)
            assert csv_text.splitlines()[0].startswith("learner,float_copy,")
            assert any(line.startswith("ada,passed,") for line in csv_text.splitlines()), csv_text

            learner = browser.new_context().new_page()
            learner.goto(f"{base}/hub/login")
            learner.fill("input[name=username]", "ada")
            learner.fill("input[name=password]", "any")
            learner.click("input[type=submit], button[type=submit]")
            learner.wait_for_url("**/user/ada/**", timeout=120_000)
            answer = learner.goto(f"{base}/services/class-view/")
            assert answer.status == 403, learner.content()[:2000]
            assert "#matrix" not in learner.content() and "bob" not in learner.inner_text("body")
            csv_answer = learner.request.get(f"{base}/services/class-view/class.csv")
            assert csv_answer.status == 403
        finally:
            browser.close()
