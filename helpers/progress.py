"""Progress bars for sweeps: a widget in a notebook, a line on stderr in a terminal.

The bar appears only once the sweep has run for a second: short sweeps stay quiet.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
SHOW_AFTER = 1.0  # seconds


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and shell.__class__.__name__ == "ZMQInteractiveShell"


class Progress:
    """``for x in Progress(items, "label"):`` with a bar once a second has passed."""

    def __init__(self, items: Iterable[T], label: str, total: int | None = None,
                 show_after: float = SHOW_AFTER, enabled: bool = True):
        self.items = list(items)
        self.label = label
        self.total = total if total is not None else len(self.items)
        self.show_after = show_after
        self.enabled = enabled
        self.done = 0
        self.shown = False
        self._bar = None
        self._started = 0.0
        self._note = ""
        self._finished = False

    def _show(self) -> None:
        self.shown = True
        if _in_notebook():
            import ipywidgets as widgets
            from IPython.display import display
            label = f"{self.label}: {self._note}" if self._note else self.label
            self._bar = widgets.IntProgress(value=self.done, max=self.total,
                                            description=label[:40],
                                            style={"description_width": "initial"})
            display(self._bar)

    def _update(self) -> None:
        if self._bar is not None:
            self._bar.value = self.done
        elif self.shown and not self._finished:
            width = 30
            filled = int(width * self.done / max(self.total, 1))
            note = f" {self._note}" if self._note else ""
            sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
                             f"{self.done}/{self.total}{note}")
            if self.done == self.total:
                sys.stderr.write("\n")
                self._finished = True
            sys.stderr.flush()

    def step(self, done: int, note: str = "") -> None:
        """Move the bar to ``done`` of ``total`` by hand (work that is not a list of items, such as
        a search with a time budget), with ``note`` beside the label."""
        if not self._started:
            self._started = time.perf_counter()
        self.done = min(done, self.total)
        if note:
            label = f"{self.label}: {note}"
            if self._bar is not None:
                self._bar.description = label
            self._note = note
        if (self.enabled and not self.shown
                and time.perf_counter() - self._started > self.show_after):
            self._show()
        self._update()

    def __iter__(self) -> Iterator[T]:
        self._started = time.perf_counter()
        for item in self.items:
            yield item
            self.done += 1
            if (self.enabled and not self.shown
                    and time.perf_counter() - self._started > self.show_after):
                self._show()
            self._update()
        if self._bar is not None:
            self._bar.bar_style = "success"
