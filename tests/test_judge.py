"""The judging of a case's values runs in the parent, which never ran learner code (issue 53
point 2): the worker hands back every buffer's bytes in a file of its folder, and the parent makes
the inputs and the answer again from the seed. What a worker says beside the bytes (an "ok", its
own facts, a claim that a case could not run) is never taken for a verdict; bytes of the wrong
length, a link in place of the file or guard bands other than the check's are never judged."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from helpers.checking.judge import RawUnreadable, case_inputs, judge_case, sentinel, tail_length
from helpers.checking.passes import PassResult, _Listener
from helpers.device import DeviceSpec
from helpers.exercises import Case, get

pytestmark = pytest.mark.once   # no device: run with one CPU implementation

EX = get("float_copy")
CASE = Case((128,), (32,), {"n": 100}, True)
SEED = 1234
HEAD = 1024        # 4 KiB of floats: the smallest head guard band the check uses
SPEC = DeviceSpec("a platform", "OpenCL 3.0", "a CPU")


def _bytes(dst: np.ndarray, src: np.ndarray, tail: int) -> bytes:
    """One run's raw file as the worker writes it: src, then dst, each with its guard bands."""
    f32 = np.float32
    parts = [sentinel("input_guard", f32, HEAD), src, sentinel("input_guard", f32, tail),
             sentinel("output_guard", f32, HEAD), dst, sentinel("output_guard", f32, tail)]
    return b"".join(np.ascontiguousarray(p, dtype=f32).tobytes() for p in parts)


def _event(folder, data: bytes, **more) -> dict:
    (folder / "case-0.raw").write_bytes(data)
    t = tail_length(100, 32)
    return {"raw": "case-0.raw", "runs": 1, "head": {"src": HEAD, "dst": HEAD},
            "tail": {"src": t, "dst": t}, "past": None, **more}


def _listener(folder) -> _Listener:
    result = PassResult(SPEC, [CASE])
    return _Listener(result, 10.0, folder / "oclgrind.log", None, threading.Event(), False,
                     lambda case, ev: judge_case(EX, case, SEED, folder, ev, True))


def _src() -> np.ndarray:
    return case_inputs(EX, CASE, SEED)["src"].astype(np.float32)


def test_a_right_copy_passes_in_the_parent(tmp_path):
    src = _src()
    heard = _listener(tmp_path)
    heard.case_ended({"case": 0, **_event(tmp_path, _bytes(src.copy(), src, tail_length(100, 32)))})
    assert heard.result.results[0]["ok"], heard.result.results[0]
    assert not (tmp_path / "case-0.raw").exists()    # read once, then removed


def test_the_workers_ok_and_facts_are_not_taken(tmp_path):
    src = _src()
    wrong = np.zeros_like(src)
    heard = _listener(tmp_path)
    ev = _event(tmp_path, _bytes(wrong, src, tail_length(100, 32)), ok=True,
                buffers={"dst": {"wrong": 0}}, mistakes=[])
    heard.case_ended({"case": 0, **ev})
    facts = heard.result.results[0]
    assert facts["ok"] is False and facts["buffers"]["dst"]["wrong"] > 0


def test_the_inputs_are_the_seeds_not_the_workers(tmp_path):
    """A worker that launched on inputs of its own making (all zeros, copied to all zeros) is
    judged against the seed's inputs: the copy is wrong and the input it "kept" changed."""
    zeros = np.zeros(100, np.float32)
    heard = _listener(tmp_path)
    heard.case_ended({"case": 0, **_event(tmp_path, _bytes(zeros, zeros, tail_length(100, 32)))})
    assert heard.result.results[0]["ok"] is False


@pytest.mark.parametrize("cut", [-4, 4])
def test_bytes_of_another_length_are_never_judged(tmp_path, cut):
    src = _src()
    data = _bytes(src.copy(), src, tail_length(100, 32))
    data = data[:cut] if cut < 0 else data + b"\0" * cut
    heard = _listener(tmp_path)
    heard.case_ended({"case": 0, **_event(tmp_path, data)})
    assert heard.result.results[0] == {"ok": False}
    assert "could not be read" in heard.result.ending.internal_error


def test_guard_bands_other_than_the_checks_are_never_judged(tmp_path):
    """A worker that claims short tail bands (so that a write past the end would fall outside
    them) is not believed."""
    src = _src()
    ev = _event(tmp_path, _bytes(src.copy(), src, 4))
    ev["tail"] = {"src": 4, "dst": 4}
    with pytest.raises(RawUnreadable, match="guard bands"):
        judge_case(EX, CASE, SEED, tmp_path, ev, True)


def test_a_link_in_place_of_the_file_is_not_followed(tmp_path):
    src = _src()
    real = tmp_path / "elsewhere.raw"
    real.write_bytes(_bytes(src.copy(), src, tail_length(100, 32)))
    ev = _event(tmp_path, b"")
    os.unlink(tmp_path / "case-0.raw")
    os.symlink(real, tmp_path / "case-0.raw")
    with pytest.raises(RawUnreadable):
        judge_case(EX, CASE, SEED, tmp_path, ev, True)


@pytest.mark.parametrize("name", ["../case-0.raw", "/etc/passwd", ".hidden", 7])
def test_a_file_outside_the_workers_folder_is_never_read(tmp_path, name):
    ev = _event(tmp_path, b"")
    ev["raw"] = name
    with pytest.raises(RawUnreadable):
        judge_case(EX, CASE, SEED, tmp_path, ev, True)


def test_not_run_is_believed_only_past_the_devices_size(tmp_path):
    heard = _listener(tmp_path)
    heard.largest = 64                   # the device allows work-groups of 64: this case's 32 run
    heard.case_ended({"case": 0, "ok": True, "not_run": "too large"})
    assert heard.result.results[0] == {"ok": False}
    assert "no results" in heard.result.ending.internal_error
    heard = _listener(tmp_path)
    heard.largest = 16
    heard.case_ended({"case": 0, "ok": True, "not_run": "too large"})
    assert heard.result.results[0] == {"ok": True, "not_run": "too large"}


def test_a_case_never_asked_for_is_not_recorded(tmp_path):
    heard = _listener(tmp_path)
    heard.case_ended({"case": 5, **_event(tmp_path, b"")})
    assert 5 not in heard.result.results or heard.result.results[5] == {"ok": False}
    assert heard.result.ending.internal_error


def test_the_worker_sends_bytes_not_verdicts(tmp_path, monkeypatch):
    """The worker's side (run in this process on the course device): its result events carry
    where the bytes are and nothing that judges them."""
    import pyopencl as cl

    from helpers.checking.worker_side import run_request
    from helpers.device import choose_device
    from helpers.kernels import SOLUTIONS
    from helpers.protocol import Event
    monkeypatch.chdir(tmp_path)
    ctx = cl.Context([choose_device()])
    events = []
    path = SOLUTIONS / "float_copy.cl"
    request = {"exercise": "float_copy", "kernel_path": str(path), "source": path.read_text(),
               "cases": [CASE.to_json()], "seed": SEED, "guard": True}
    run_request(ctx, cl.CommandQueue(ctx), request, lambda **ev: events.append(ev))
    results = [ev for ev in events if ev["event"] is Event.RESULT]
    assert len(results) == 1
    assert set(results[0]) == {"event", "case", "raw", "runs", "head", "tail", "past"}
    assert judge_case(EX, CASE, SEED, tmp_path, results[0], True)["ok"]
