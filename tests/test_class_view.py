"""The class view (issue 24), without a hub: what a check sends and when, what the service keeps
and refuses, and the class it shows. browser_tests/test_class_view.py runs the service, with
JupyterHub installed: its answers to tokens, then in a real hub with Chromium."""

from __future__ import annotations

import csv
import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

from helpers.hub import events
from helpers.hub.service import EVENT_BYTES, RateLimit, validated
from helpers.hub.store import Store, class_state, grader_csv

EXERCISES = ["float_copy", "sum_ints", "erosion_1d_local"]


def ev(exercise="float_copy", passed=False, mistake="data race", seconds=1.5, kernel="ab12"):
    return {"exercise": exercise, "passed": passed, "mistake": mistake, "seconds": seconds,
            "kernel": kernel}


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


def test_an_event_is_the_exercise_verdict_mistake_time_and_the_kernels_hash(tmp_path):
    k = tmp_path / "float_copy.cl"
    k.write_text("__kernel void float_copy() {}\n")
    failed = events.event(_report(False, "float_copy failed:\n  likely mistake: no guard. x",
                                  k), 0.8123)
    assert failed == {"exercise": "float_copy", "passed": False, "mistake": "no guard",
                      "seconds": 0.812, "kernel": failed["kernel"]}
    assert len(failed["kernel"]) == 16 and set(failed["kernel"]) <= set("0123456789abcdef")
    assert validated(json.dumps(failed).encode(), {"float_copy"})[0] == 200
    passed = events.event(_report(True, "float_copy passed", k), 2)
    assert passed["mistake"] == "" and passed["kernel"] == failed["kernel"]


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
                     "mistake": mistake, "seconds": 1.0, "kernel": "", "at": at})
    return rows


def test_the_class_matrix_the_stuck_and_what_to_explain():
    s = class_state(_events(), EXERCISES, learners=["ada", "bob", "cy", "dee"],
                    now=1000.0 + 16 * 60)
    assert s.learners == ["ada", "bob", "cy", "dee"]
    assert s.cells["ada", "float_copy"].state == "passed"
    assert s.cells["ada", "float_copy"].attempts == 2
    assert s.cells["bob", "erosion_1d_local"].state == "trying"
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
    assert rows[0] == ["learner", *EXERCISES, "passed", "of"]
    by = {r[0]: r[1:] for r in rows[1:]}
    assert by["ada"] == ["passed", "missing", "missing", "1", "3"]
    assert by["bob"] == ["missing", "missing", "failed", "0", "3"]
    assert by["cy"] == ["missing", "passed", "failed", "1", "3"]
    assert "'=HYPERLINK()" in by                              # no formula for a spreadsheet


def test_a_failed_checks_mistake_in_a_few_words():
    from helpers.checking.mistakes import likely_mistake
    from helpers.checking.oclgrind import Finding
    from helpers.checking.passes import PassResult
    from helpers.device import DeviceSpec
    cpu = DeviceSpec("p", "v", "cpu")

    def report(message="float_copy failed", results=None, findings=(), **dp):
        d = PassResult(cpu, [], results=results or {}, **dp)
        op = PassResult(cpu, [])
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
