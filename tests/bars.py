"""A progress bar that tests read after the call: tqdm writing to a string, kept in a list.
``monkeypatch.setattr(tqdm.auto, "tqdm", RecordingBar)`` puts it where the course's code looks for
its bar (``from tqdm.auto import tqdm`` inside each function)."""

from __future__ import annotations

import io

from tqdm import tqdm


class RecordingBar(tqdm):
    made: list[RecordingBar] = []

    def __init__(self, *args, **kwargs):
        kwargs.update(file=io.StringIO(), disable=False, delay=0)
        super().__init__(*args, **kwargs)
        self.closed = False
        RecordingBar.made.append(self)

    def close(self):
        self.closed = True
        super().close()
