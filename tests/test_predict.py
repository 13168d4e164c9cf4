"""A prediction is locked in before its answer is told (helpers/predict.py, issue 54 point 2)."""

from __future__ import annotations

import pytest

from helpers import predict as p

pytestmark = pytest.mark.once   # widgets and text: no device

CHOICES = ["the ring", "the shifted array", "unrolling forbidden", "eight variables"]


@pytest.fixture(autouse=True)
def _solutions_off(monkeypatch):
    monkeypatch.setenv("COURSE_SOLUTIONS", "0")
    p._LOCKED.clear()


def test_nothing_is_told_before_a_choice_is_locked_in():
    w = p.predict("06-slowest", "Which is slowest?", CHOICES, answer=2)
    assert w.message.value == "" and not w.button.disabled
    w.lock()                                   # nothing picked: no answer, nothing kept
    assert "Pick one" in w.message.value and "unrolling forbidden" not in w.message.value
    assert p.predictions() == {} and not w.options.disabled


def test_a_locked_in_choice_is_kept_and_frozen_and_then_judged():
    w = p.predict("06-slowest", "Which is slowest?", CHOICES, answer=2)
    w.options.value = 0
    w.lock()
    assert p.predictions() == {"06-slowest": "the ring"}
    assert w.options.disabled and w.button.disabled
    assert "You predicted \u201cthe ring\u201d" in w.message.value
    assert "Not what the lesson" in w.message.value and "unrolling forbidden" in w.message.value
    w.options.disabled = False                 # a second lock-in changes nothing
    w.options.value = 2
    w.lock()
    assert p.predictions() == {"06-slowest": "the ring"}


def test_the_right_choice_is_told_so():
    w = p.predict("06-slowest", "Which is slowest?", CHOICES, answer=2)
    w.options.value = 2
    w.lock()
    assert "That is what the lesson's reasoning gives" in w.message.value


def test_with_the_solutions_on_the_answer_is_shown_at_once(monkeypatch):
    monkeypatch.setenv("COURSE_SOLUTIONS", "1")
    w = p.predict("06-slowest", "Which is slowest?", CHOICES, answer=2)
    assert "unrolling forbidden" in w.message.value and w.options.value == 2
    assert w.button.disabled and p.predictions() == {}


@pytest.mark.parametrize("choices, answer", [(["only one"], 0), (CHOICES, 4), (CHOICES, -1)])
def test_a_question_without_a_real_choice_is_refused(choices, answer):
    with pytest.raises(ValueError):
        p.predict("k", "q?", choices, answer)
