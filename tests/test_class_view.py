"""The class view (issue 24), without a hub: what a check sends and when, what the service keeps
and refuses, and the class it shows: what a learner's server says as self-reported, what the
service's own re-check of the kernel said as verified. browser_tests/test_class_view.py runs the
service, with JupyterHub installed: its answers to tokens, then in a real hub with Chromium."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import pytest

from helpers.hub import events
from helpers.hub.recheck import SOURCE_BYTES, Rechecker
from helpers.hub.service import (
    EVENT_BYTES,
    REPORT_SCOPE,
    EventsHandler,
    RateLimit,
    app_settings,
    http_server,
    main_html,
    receive,
    settings_from_environment,
    validated,
)
from helpers.hub.store import Store, class_state, grader_csv

from .conftest import ROOT

pytestmark = pytest.mark.once   # the hub's events, store and view: no device of its own

EXERCISES = ["float_copy", "sum_ints", "erosion_1d_local"]
SOLUTION = (ROOT / "solutions" / "float_copy.cl").read_text()
WRONG = SOLUTION.replace("    if (i < n)\n", "")          # no guard: writes past the end


def ev(exercise="float_copy", passed=False, mistake="data race", seconds=1.5, kernel="ab12",
       source=None):
    e = {"exercise": exercise, "passed": passed, "mistake": mistake, "seconds": seconds,
         "kernel": kernel}
    return e if source is None else {**e, "source": source}


# ---------------------------------------------------------------------------------------------
# what a check sends


def _report(passed: bool, message: str, path: Path):
    return SimpleNamespace(name="float_copy", passed=passed, message=message, kernel_path=path,
                           oclgrind_pass=None, device_pass=None)


def test_outside_the_hub_a_check_sends_nothing(monkeypatch, tmp_path):
    monkeypatch.delenv("COURSE_CLASS_URL", raising=False)
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "t")
    assert events.destination() is None
    assert not events.report_check(_report(True, "float_copy passed", tmp_path / "k.cl"), 1.0)
    monkeypatch.setenv("COURSE_CLASS_URL", "http://127.0.0.1:9/services/class-view/")
    monkeypatch.delenv("JUPYTERHUB_API_TOKEN")
    assert events.destination() is None          # no hub token: not the course's hub


def test_an_event_is_the_exercise_verdict_mistake_time_the_kernels_hash_and_text(tmp_path):
    k = tmp_path / "float_copy.cl"
    k.write_text("__kernel void float_copy() {}\n")
    failed = events.event(_report(False, "float_copy failed:\n  likely mistake: no guard. x",
                                  k), 0.8123)
    assert failed == {"exercise": "float_copy", "passed": False, "mistake": "no guard",
                      "seconds": 0.812, "kernel": failed["kernel"],
                      "source": "__kernel void float_copy() {}\n"}
    assert len(failed["kernel"]) == 16 and set(failed["kernel"]) <= set("0123456789abcdef")
    assert validated(json.dumps(failed).encode(), {"float_copy"})[0] == 200
    passed = events.event(_report(True, "float_copy passed", k), 2)
    assert passed["mistake"] == "" and passed["kernel"] == failed["kernel"]
    # a file the check could not read as a kernel: no text goes
    k.write_bytes(b"\0\1")
    assert "source" not in events.event(_report(False, "x", k), 1)
    assert "source" not in events.event(_report(False, "x", tmp_path / "none.cl"), 1)


class _Slow(BaseHTTPRequestHandler):
    release = threading.Event()
    bodies: list[tuple[str, dict]] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Slow.release.wait(10)
        _Slow.bodies.append((self.headers["Authorization"], body))
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *a):
        pass


def test_a_check_never_waits_for_the_class_view(monkeypatch, tmp_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("COURSE_CLASS_URL", f"http://127.0.0.1:{server.server_port}/x/")
        monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "server-token")
        # the service holds the request: the check has already gone on
        assert events.report_check(_report(True, "ok", tmp_path / "none.cl"), 0.5)
        assert not _Slow.bodies
        _Slow.release.set()
        assert events.flush(10)
        assert _Slow.bodies == [("token server-token", {"exercise": "float_copy",
                                                        "passed": True, "mistake": "",
                                                        "seconds": 0.5, "kernel": ""})]
    finally:
        server.shutdown()
    # the service gone: the event is dropped, the check is not told
    before = events.dropped
    assert events.report_check(_report(True, "ok", tmp_path / "none.cl"), 0.5)
    assert events.flush(10) and events.dropped == before + 1


# ---------------------------------------------------------------------------------------------
# what the service keeps and refuses


def test_bad_events_are_refused_with_their_4xx():
    known = set(EXERCISES)
    assert validated(json.dumps(ev()).encode(), known)[0] == 200
    assert validated(b"x" * (EVENT_BYTES + 1), known)[0] == 413
    assert validated(b"{not json", known)[0] == 400
    assert validated(b"[1, 2]", known)[0] == 400
    assert validated(json.dumps({**ev(), "learner": "bob"}).encode(), known)[0] == 400
    assert validated(json.dumps({**ev(), "passed": "yes"}).encode(), known)[0] == 400
    assert validated(json.dumps({**ev(), "seconds": -1}).encode(), known)[0] == 400
    assert validated(json.dumps({**ev(), "kernel": "<script>"}).encode(), known)[0] == 400
    assert validated(json.dumps(ev(exercise="rm -rf")).encode(), known)[0] == 422
    assert validated(json.dumps(ev(passed=True)).encode(), known)[0] == 400


def test_one_learner_may_not_flood_the_view():
    limit = RateLimit(3)
    assert [limit.allow("bob", t) for t in (0, 1, 2, 3)] == [True, True, True, False]
    assert limit.allow("ada", 3)                  # another learner is not held back
    assert limit.allow("bob", 61)                 # a minute later


def test_events_survive_a_restart_and_two_at_once_are_both_kept(tmp_path):
    db = tmp_path / "class.sqlite"
    store = Store(db)
    threads = [threading.Thread(target=store.add, args=(f"u{i}", "float_copy", False, "m", 1.0,
                                                         "ab")) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    store.close()
    again = Store(db)
    assert sorted(e["learner"] for e in again.events()) == sorted(f"u{i}" for i in range(20))


# ---------------------------------------------------------------------------------------------
# the class it shows


def _events():
    t = 1000.0
    rows = []
    for i, (who, ex, passed, mistake, at) in enumerate([
            ("ada", "float_copy", False, "no guard", t), ("ada", "float_copy", True, "", t + 60),
            ("bob", "erosion_1d_local", False, "data race", t),
            ("bob", "erosion_1d_local", False, "data race", t + 300),
            ("bob", "erosion_1d_local", False, "divergent barrier", t + 900),
            ("cy", "erosion_1d_local", False, "data race", t + 950),
            ("cy", "sum_ints", False, "wrong results", t + 100),
            ("cy", "sum_ints", True, "", t + 200)]):
        rows.append({"id": i, "learner": who, "exercise": ex, "passed": passed,
                     "mistake": mistake, "seconds": 1.0, "kernel": "", "at": at,
                     "claimed": passed, "verified": True, "recheck": "done"})
    return rows


def test_the_class_matrix_the_stuck_and_what_to_explain():
    s = class_state(_events(), EXERCISES, learners=["ada", "bob", "cy", "dee"],
                    now=1000.0 + 16 * 60)
    assert s.learners == ["ada", "bob", "cy", "dee"]
    assert s.cells["ada", "float_copy"].state == "passed (verified)"
    assert s.cells["ada", "float_copy"].attempts == 2
    assert s.cells["bob", "erosion_1d_local"].state == "failed (verified)"
    assert ("dee", "float_copy") not in s.cells               # not tried
    # bob: 3 failed checks over 16 minutes; cy: 1 failed check, not stuck
    assert [(x["learner"], x["exercise"], x["failed"]) for x in s.stuck] == [
        ("bob", "erosion_1d_local", 3)]
    # the latest failed check of each learner still trying: bob's barrier, cy's race
    assert s.mistakes == {"erosion_1d_local": [("divergent barrier", 1), ("data race", 1)]}
    early = class_state(_events(), EXERCISES, now=1000.0 + 10 * 60)
    assert not early.stuck                                    # not 15 minutes yet


def test_the_matrix_as_csv_in_the_graders_format():
    s = class_state(_events(), EXERCISES, learners=["ada", "bob", "cy", "=HYPERLINK()"])
    rows = list(csv.reader(io.StringIO(grader_csv(s))))
    assert rows[0] == ["learner", *EXERCISES, "passed", "of", "verified"]
    by = {r[0]: r[1:] for r in rows[1:]}
    assert by["ada"] == ["passed", "missing", "missing", "1", "3", "true"]
    assert by["bob"] == ["missing", "missing", "failed", "0", "3", "true"]
    assert by["cy"] == ["missing", "passed", "failed", "1", "3", "true"]
    assert "'=HYPERLINK()" in by                              # no formula for a spreadsheet


def test_a_failed_checks_mistake_in_a_few_words():
    from helpers.checking.mistakes import likely_mistake
    from helpers.checking.oclgrind import Finding
    from helpers.checking.passes import Ending, OclgrindResult, PassResult
    from helpers.device import DeviceSpec
    cpu = DeviceSpec("p", "v", "cpu")

    def report(message="float_copy failed", results=None, findings=(), **dp):
        d = PassResult(cpu, [], results=results or {}, ending=Ending(**dp))
        op = OclgrindResult(cpu, [])
        op.findings = list(findings)
        return SimpleNamespace(passed=False, message=message, device_pass=d, oclgrind_pass=op)
    assert likely_mistake(report("x\n  likely mistake: taps reversed. More")) == "taps reversed"
    race = Finding("race", "m", "h", 3, 1, None, None)
    assert likely_mistake(report(findings=[race])) == "data race"
    assert likely_mistake(report(build_error="error: x")) == "does not compile"
    assert likely_mistake(report(hung_in=0)) == "timed out"
    out = {"role": "out", "length": 8, "unwritten": 8, "wrong": 0}
    assert likely_mistake(report(results={0: {"ok": False, "buffers": {"dst": out}}})) == \
        "dst never written"
    assert likely_mistake(report(results={0: {"ok": False, "buffers": {
        "dst": {**out, "unwritten": 0, "wrong": 3}}}})) == "wrong values in dst"
    assert likely_mistake(SimpleNamespace(passed=True, message="")) == ""


# ---------------------------------------------------------------------------------------------
# self-reported and verified: a learner's server's word, the service's own re-check


def _service(tmp_path, check=None, **settings):
    """The service's settings without a hub (what the events handler and the pages read)."""
    store = Store(tmp_path / "class.sqlite")
    if check is not None:
        settings["rechecker"] = Rechecker(store, enabled=settings.get("recheck", True),
                                          check=check)
    return app_settings(store, {"exercise_order": EXERCISES, **settings})


def _post(s, learner, **fields) -> tuple[int, dict]:
    return receive(s, learner, json.dumps(ev(**fields)).encode())


def _rechecked(s, event_id: int, timeout: float = 120.0) -> dict:
    """The event once its re-check has ended (a bounded poll)."""
    end = time.monotonic() + timeout
    while True:
        e = next(e for e in s["store"].events() if e["id"] == event_id)
        if e["recheck"] != "pending":
            return e
        assert time.monotonic() < end, f"event {event_id} not re-checked in {timeout} s"
        time.sleep(0.05)


def _view(s):
    """The class, its page's HTML and its CSV's rows by learner."""
    state = class_state(s["store"].events(), EXERCISES)
    rows = list(csv.reader(io.StringIO(grader_csv(state))))
    return state, main_html(state, s), {r[0]: r[1:] for r in rows}


def _td(page: str, learner: str) -> str:
    """The learner's first cell (float_copy) in the page's matrix."""
    row = re.search(rf"<tr><th>{learner}</th>(<td[^>]*>[^<]*</td>)", page)
    assert row, page
    return row.group(1)


def test_a_posted_pass_without_its_kernel_is_only_self_reported(tmp_path):
    s = _service(tmp_path)
    assert _post(s, "ada", passed=True, mistake="") == (200, {
        "stored": True, "id": 1, "verified": False, "recheck": "no source"})
    state, page, rows = _view(s)
    c = state.cells["ada", "float_copy"]
    assert (c.state, c.verified, c.passed) == ("passed (self-reported)", False, True)
    td = _td(page, "ada")
    assert td.startswith("<td class='passed self-reported' title='self-reported: ")
    assert "could forge it" in td and "sent no kernel source" in td
    assert td.endswith(">passed (self-reported), 1 try</td>")
    matrix = page[page.index("<table"):page.index("</table>")]
    assert "passed (verified)," not in matrix and "class='passed'" not in matrix
    assert "passed (self-reported)</span>: only the learner's own server" in page
    assert "a learner could forge it" in page[page.index("class=\"legend\""):]
    assert "0 (+1 self-reported)" in matrix                   # not counted as passed
    assert rows["learner"][-1] == "verified"
    assert rows["ada"] == ["passed (self-reported)", "missing", "missing", "0", "3", "false"]


def test_the_service_rechecks_the_kernel_it_is_sent(tmp_path, oclgrind_present):
    s = _service(tmp_path)
    assert WRONG != SOLUTION
    _, ada = _post(s, "ada", passed=True, mistake="", source=SOLUTION)
    _, bob = _post(s, "bob", passed=True, mistake="", source=WRONG)     # a forged pass
    assert ada["recheck"] == bob["recheck"] == "pending" and not ada["verified"]
    a, b = _rechecked(s, ada["id"]), _rechecked(s, bob["id"])
    assert (a["verified"], a["passed"], a["claimed"], a["recheck"]) == (True, True, True, "done")
    assert (b["verified"], b["passed"], b["claimed"], b["recheck"]) == (True, False, True, "done")
    assert b["mistake"]                                       # the service's own likely mistake
    state, page, rows = _view(s)
    assert state.cells["ada", "float_copy"].state == "passed (verified)"
    cb = state.cells["bob", "float_copy"]
    assert (cb.state, cb.verified, cb.refuted) == ("failed (verified)", True, 1)
    assert _td(page, "ada") .startswith("<td class='passed verified' title='passed the service")
    assert _td(page, "ada").endswith(">passed (verified), 1 try</td>")
    td = _td(page, "bob")
    assert td.startswith("<td class='failed verified refuted' title=")
    assert "reported 1 check passed that the service&#x27;s re-check failed" in td
    assert re.search(r">failed \(verified\), 1 try, [^<]*; reported passed</td>$", td)
    assert rows["ada"] == ["passed", "missing", "missing", "1", "3", "true"]
    assert rows["bob"] == ["failed", "missing", "missing", "0", "3", "true"]
    assert f"{b['mistake']} (1)" in page                      # what to explain: bob's, verified
    assert state.verified == 2 and state.pending == 0


def test_a_recheck_never_holds_the_handler_and_one_learner_cannot_fill_the_queue(tmp_path):
    go = threading.Event()

    def slow(exercise, source, learner):                      # a re-check that takes its time
        assert go.wait(30)
        return source == "good", "" if source == "good" else "wrong values in dst"
    s = _service(tmp_path, check=slow)
    t0 = time.monotonic()
    answers = [_post(s, "ada", passed=True, mistake="", source=src)[1]
               for src in ("bad", "good", "good", "good")]
    assert time.monotonic() - t0 < 2                          # none waited for a re-check
    assert [a["recheck"] for a in answers] == ["pending"] * 3 + ["skipped"]
    c = class_state(s["store"].events(), EXERCISES).cells["ada", "float_copy"]
    assert (c.state, c.pending) == ("passed (self-reported)", 3)
    assert "too many re-checks were waiting" in c.unverified  # the latest pass: the 4th
    go.set()
    assert s["rechecker"].idle(30)
    state, page, _ = _view(s)
    c = state.cells["ada", "float_copy"]
    # a re-check passed one: verified; the skipped one is still the server's word only
    assert (c.state, c.refuted, c.pending, state.verified) == ("passed (verified)", 1, 0, 3)


def test_an_oversize_source_is_refused_with_400(tmp_path):
    s = _service(tmp_path, recheck=False)
    known = set(EXERCISES)
    assert _post(s, "ada", source="x" * (SOURCE_BYTES + 1))[0] == 400
    assert _post(s, "ada", source="é" * (SOURCE_BYTES // 2 + 1))[0] == 400   # bytes, not chars
    assert _post(s, "ada", source=7)[0] == 400
    assert validated(b'{"source": "\\ud800", ' + json.dumps(ev())[1:].encode(), known)[0] == 400
    assert validated(b"[" * 2000, known)[0] == 400            # deep nesting: refused, no crash
    assert validated(json.dumps(ev()).encode() + b" " * EVENT_BYTES, known)[0] == 413
    assert not s["store"].events()
    assert validated(json.dumps(ev(source="x" * SOURCE_BYTES)).encode(), known)[0] == 200
    assert validated(json.dumps(ev(source="\n\t\"" * (SOURCE_BYTES // 3))).encode(),
                     known)[0] == 200


class _Auth:
    def get_token(self, handler, in_cookie=True):
        return handler.request.headers.get("Authorization", "").removeprefix("token ")

    async def user_for_token(self, token, sync=True):
        return {"kind": "user", "name": token, "scopes": [REPORT_SCOPE]}


def test_the_events_handler_answers_the_same_through_http(tmp_path):
    from tornado import web
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest
    from tornado.netutil import bind_sockets
    s = _service(tmp_path, recheck=False)

    async def scenario() -> list[tuple[int, dict]]:
        server = http_server(web.Application([("/events", EventsHandler)], hub_auth=_Auth(), **s))
        sockets = bind_sockets(0, "127.0.0.1")
        server.add_sockets(sockets)
        url = f"http://127.0.0.1:{sockets[0].getsockname()[1]}/events"
        out = []
        for source in ("x" * SOURCE_BYTES, "x" * (SOURCE_BYTES + 1)):
            r = await AsyncHTTPClient().fetch(HTTPRequest(
                url, method="POST", headers={"Authorization": "token ada"},
                body=json.dumps(ev(source=source))), raise_error=False)
            out.append((r.code, json.loads(r.body)))
        server.stop()
        return out
    (ok, ok_answer), (big, big_answer) = asyncio.run(scenario())
    assert (ok, ok_answer["recheck"], big) == (200, "off", 400), (ok_answer, big_answer)
    assert "1 MiB" in big_answer["why"] and len(s["store"].events()) == 1


def test_with_rechecks_off_everything_stays_self_reported(tmp_path, monkeypatch):
    monkeypatch.delenv("COURSE_CLASS_RECHECK", raising=False)
    assert settings_from_environment()["recheck"] is True
    monkeypatch.setenv("COURSE_CLASS_RECHECK", "0")
    assert settings_from_environment()["recheck"] is False
    s = _service(tmp_path)                                    # the environment's: off
    assert _post(s, "ada", passed=True, mistake="", source=SOLUTION)[1]["recheck"] == "off"
    assert _post(s, "bob", passed=False, source=WRONG)[1]["recheck"] == "off"
    assert s["rechecker"].idle(0) and s["rechecker"].done == 0
    time.sleep(0.2)
    assert [(e["verified"], e["recheck"]) for e in s["store"].events()] == [(False, "off")] * 2
    state, page, rows = _view(s)
    assert state.cells["ada", "float_copy"].state == "passed (self-reported)"
    assert state.cells["bob", "float_copy"].state == "trying (self-reported)"
    assert "re-checks are off on this hub" in _td(page, "ada")
    assert "Re-checks are off on this hub" in page and state.verified == 0
    assert rows["ada"] == ["passed (self-reported)", "missing", "missing", "0", "3", "false"]
    assert rows["bob"] == ["failed (self-reported)", "missing", "missing", "0", "3", "false"]


def test_a_class_from_before_rechecks_opens_self_reported_and_a_lost_recheck_says_so(tmp_path):
    import sqlite3
    db = tmp_path / "old.sqlite"
    old = sqlite3.connect(db)
    old.executescript("CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, learner TEXT "
                      "NOT NULL, exercise TEXT NOT NULL, passed INTEGER NOT NULL, mistake TEXT "
                      "NOT NULL, seconds REAL NOT NULL, kernel TEXT NOT NULL, at REAL NOT NULL);"
                      "INSERT INTO events VALUES (1, 'ada', 'float_copy', 1, '', 1.0, '', 5.0);")
    old.commit()
    old.close()
    store = Store(db)
    assert store.events()[0] | {"at": 0} == {
        "id": 1, "learner": "ada", "exercise": "float_copy", "passed": True, "mistake": "",
        "seconds": 1.0, "kernel": "", "at": 0, "claimed": True, "verified": False,
        "recheck": ""}
    store.add("bob", "float_copy", True, "", 1.0, "", recheck="pending")
    store.close()
    again = Store(db)                                         # the service restarted
    c = class_state(again.events(), EXERCISES).cells["bob", "float_copy"]
    assert c.state == "passed (self-reported)" and "restarted" in c.unverified


class _Listener(BaseHTTPRequestHandler):
    bodies: list[dict] = []

    def do_POST(self):
        _Listener.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *a):
        pass


def test_a_check_in_a_hub_terminal_reaches_the_class_view_through_its_observer():
    """The checker knows nothing of the hub: ``import helpers`` in a hub's server registers the
    reporter as an observer of the verdicts, and a check run from a terminal (a process that ends
    at once) still delivers its event; without the hub's variables nothing is registered."""
    import subprocess
    import sys

    from helpers.paths import ROOT
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Listener)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = {k: v for k, v in os.environ.items() if k not in ("COURSE_CLASS_URL",)}
    try:
        hub = dict(env, COURSE_CLASS_URL=f"http://127.0.0.1:{server.server_port}/x/",
                   JUPYTERHUB_API_TOKEN="server-token")
        out = subprocess.run([sys.executable, "-m", "helpers", "check", "float_copy",
                              "--solutions"], env=hub, cwd=ROOT, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr
        assert [(b["exercise"], b["passed"]) for b in _Listener.bodies] == [("float_copy", True)]
    finally:
        server.shutdown()
    code = ("import helpers, helpers.checking.observers as o; print(len(o._observers))")
    alone = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                           text=True, timeout=120)
    assert alone.stdout.strip() == "0", alone.stdout + alone.stderr


def test_an_observer_that_fails_costs_no_verdict():
    from helpers.checking import observers
    heard = []

    def broken(report, seconds):
        raise RuntimeError("the observer's own trouble")

    off = [observers.subscribe(broken), observers.subscribe(lambda r, s: heard.append((r, s)))]
    observers.subscribe(broken)   # twice: still once
    try:
        observers.publish("report", 1.5)
        assert heard == [("report", 1.5)]
        assert observers._observers.count(broken) == 1
    finally:
        for f in off:
            f()


def test_a_learners_recheck_never_shares_a_worker_with_anothers(tmp_path, oclgrind_present):
    """Issue 55 point 5: re-checks of one exercise shared one warm worker for the whole class, so
    a poisoned worker spoiled the next learner's verdict and held their kernel's text. Each
    re-check now runs in workers of its learner's own, stopped when it ends."""
    from helpers import workers
    from helpers.hub import recheck as rc
    seen = []
    real = rc.recheck

    def spy(exercise, source, learner):
        seen.append(learner)
        result = real(exercise, source, learner)
        seen.append(sorted(k.owner for k in workers.POOL.idle() if k.owner.startswith("class-view")))
        return result
    s = _service(tmp_path, check=spy)
    _, ada = _post(s, "ada", passed=True, mistake="", source=SOLUTION)
    _, bob = _post(s, "bob", passed=True, mistake="", source=WRONG)
    a, b = _rechecked(s, ada["id"]), _rechecked(s, bob["id"])
    assert (a["verified"], a["passed"], b["verified"], b["passed"]) == (True, True, True, False)
    assert seen == ["ada", [], "bob", []], seen       # each its own, none left warm


def test_a_recheck_that_cannot_be_sandboxed_never_runs_and_stays_self_reported(
        tmp_path, monkeypatch):
    """Issue 55 point 5: where the machine cannot sandbox a re-check, the service runs no
    learner's kernel; the event stays self-reported and the page says why."""
    from helpers.hub import recheck as rc
    monkeypatch.setattr(rc, "jail", lambda: "bubblewrap is not installed")
    ran = []
    import helpers.checking
    monkeypatch.setattr(helpers.checking, "run_check", lambda *a, **k: ran.append(a))
    s = _service(tmp_path, check=rc.recheck, recheck_unsandboxed="bubblewrap is not installed")
    _, ada = _post(s, "ada", passed=True, mistake="", source=SOLUTION)
    e = _rechecked(s, ada["id"])
    assert (e["verified"], e["recheck"]) == (False, "unsandboxed") and ran == []
    state, page, rows = _view(s)
    c = state.cells["ada", "float_copy"]
    assert c.state == "passed (self-reported)" and "cannot sandbox" in c.unverified
    assert "Re-checks need the sandbox, which this machine cannot run" in page
    assert rows["ada"][-1] == "false"
