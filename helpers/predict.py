"""A prediction the learner commits to before seeing the answer (issue 54 point 2).

A notebook asks a **Predict:** question in markdown; the code cell after it shows the choices::

    predict("06-slowest", "Which of the four filters is slowest on a GPU?",
            ["the ring", "the shifted array", "the shifted array, unrolling forbidden",
             "eight variables"], answer=2)

The learner picks one and locks it in: the choice is kept (:func:`predictions`), the controls
freeze, and only then does the cell say whether the reasoning held and point at the collapsed
answer and the run that follow. The choices are the misconceptions worth telling apart (a
multiple-choice question whose wrong answers each say what the learner believed). With the
solutions switch on (nbval, an instructor's run-through) the cell shows the answer at once.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import ipywidgets as widgets

from .kernels import solutions_on

_LOCKED: dict[str, str] = {}     # key -> the choice locked in, this session


def predictions() -> dict[str, str]:
    """The predictions locked in during this session, by key."""
    return dict(_LOCKED)


@dataclass
class Prediction:
    """One question's state: its choices, the right one, and what the learner locked in."""

    key: str
    question: str
    choices: list[str]
    answer: int
    chosen: int | None = None
    said: list[str] = field(default_factory=list)   # what the cell has told the learner

    def lock(self, choice: int) -> str:
        """Lock ``choice`` in (once); the sentence the cell shows then."""
        if self.chosen is not None:
            return self.said[-1]
        if not 0 <= choice < len(self.choices):
            raise ValueError(f"choice {choice} is not one of the {len(self.choices)} offered")
        self.chosen = choice
        _LOCKED[self.key] = self.choices[choice]
        if choice == self.answer:
            verdict = "That is what the lesson's reasoning gives."
        else:
            verdict = (f"Not what the lesson's reasoning gives: think again about why it would "
                       f"be \u201c{self.choices[self.answer]}\u201d.")
        self.said.append(f"You predicted \u201c{self.choices[choice]}\u201d. {verdict} Open the "
                         "answer below, then run the next cell and see it measured.")
        return self.said[-1]

    def reveal(self) -> str:
        """The answer told at once (the solutions switch: nbval, an instructor)."""
        self.said.append(f"The answer (solutions on): \u201c{self.choices[self.answer]}\u201d.")
        return self.said[-1]


class PredictionWidget(widgets.VBox):
    """The question, its choices as radio buttons and a lock-in button (see :func:`predict`)."""

    def __init__(self, prediction: Prediction):
        self.prediction = prediction
        self.options = widgets.RadioButtons(
            options=[(text, i) for i, text in enumerate(prediction.choices)], value=None,
            layout=widgets.Layout(width="auto"))
        self.button = widgets.Button(description="Lock in my prediction", button_style="primary",
                                     layout=widgets.Layout(width="auto"))
        self.message = widgets.HTML("")
        self.button.on_click(lambda _: self.lock())
        super().__init__([widgets.HTML(f"<b>Your prediction:</b> "
                                       f"{html.escape(prediction.question)}"),
                          self.options, self.button, self.message])
        if solutions_on():
            self._show(prediction.reveal())
            self.options.value = prediction.answer
            self._freeze()

    def lock(self) -> None:
        if self.options.value is None:
            self.message.value = "Pick one of the choices first."
            return
        self._show(self.prediction.lock(self.options.value))
        self._freeze()

    def _show(self, text: str) -> None:
        self.message.value = html.escape(text, quote=False)

    def _freeze(self) -> None:
        self.options.disabled = self.button.disabled = True


def predict(key: str, question: str, choices: list[str], answer: int,
            recall: bool = False) -> PredictionWidget:
    """Show ``question``'s ``choices`` to lock one in before the answer is opened; ``answer``:
    the index of the right choice; ``key``: the question's name (notebook and subject) in
    :func:`predictions`. ``recall``: the question asks for a figure of a device the learner does
    not have (the lesson then gives what is needed to estimate it); the course keeps those to one
    in ten (tests/test_lesson_shape.py reads the flag in the notebooks)."""
    if len(choices) < 2:
        raise ValueError("a prediction offers at least two choices")
    if not 0 <= answer < len(choices):
        raise ValueError(f"answer {answer} is not one of the {len(choices)} choices")
    return PredictionWidget(Prediction(key, question, list(choices), answer))
