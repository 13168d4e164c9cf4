"""The child's facts about guard bands, poison and inputs, on arrays made by hand (the guard bands'
reach depends on the device: PoCL lets overflows land in them, NVIDIA drops them)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.judge import analyse, sentinel
from helpers.exercises import Case, get

pytestmark = pytest.mark.once   # no device: run with one CPU implementation

EX = get("float_copy")
CASE = Case((128,), (32,), {"n": 100})
H, T = 8, 16


def outputs(body_dst: np.ndarray, src: np.ndarray, tail_dst: np.ndarray | None = None) -> dict:
    f32 = np.float32
    tail = sentinel("output_guard", f32, T) if tail_dst is None else tail_dst
    return {
        "src": np.concatenate([sentinel("input_guard", f32, H), src, sentinel("input_guard", f32, T)]),
        "dst": np.concatenate([sentinel("output_guard", f32, H), body_dst, tail]),
    }


def facts(dst: np.ndarray, src: np.ndarray, tail=None) -> dict:
    got = outputs(dst, src, tail)
    return analyse(EX, CASE, {"src": src}, {"dst": src.copy()}, got, {"src": H, "dst": H},
                   {"src": T, "dst": T})


SRC = np.arange(1, 101, dtype=np.float32)


def test_a_right_copy_has_no_complaint():
    f = facts(SRC.copy(), SRC)
    assert f["ok"] and f["buffers"]["dst"]["wrong"] == 0


def test_a_write_past_the_end_shows_in_the_tail_guard():
    tail = sentinel("output_guard", np.float32, T)
    tail[:3] = 7.0
    f = facts(SRC.copy(), SRC, tail)["buffers"]["dst"]
    assert (f["tail_changed"], f["tail_first"], f["tail_last"]) == (3, 0, 2)


def test_an_input_guard_copied_into_the_output_is_a_read_past_the_end():
    dst = SRC.copy()
    dst[99] = sentinel("input_guard", np.float32, 1)[0]
    f = facts(dst, SRC)["buffers"]["dst"]
    assert f["leaked"] == 1 and f["wrong"] == 0


def test_poison_left_over_is_unwritten_and_a_shift_is_recognised():
    dst = SRC.copy()
    dst[99] = sentinel("poison", np.float32, 1)[0]
    f = facts(dst, SRC)["buffers"]["dst"]
    assert (f["unwritten"], f["unwritten_first"], f["unwritten_is_tail"]) == (1, 99, True)
    shifted = np.append(SRC[1:], np.float32(0))
    g = facts(shifted, SRC)["buffers"]["dst"]
    assert g["shift"] == 1 and g["wrong"] == 100


def test_a_mistake_model_is_named_only_when_it_differs_from_the_answer():
    dst = sentinel("poison", np.float32, 100)
    dst[:32] = SRC[:32]  # what get_local_id(0) gives with work-groups of 32
    assert facts(dst, SRC)["mistakes"] == ["local id"]
