"""The kinds of event a worker sends its parent (:mod:`.workers`): one line of JSON each, its kind in
``"event"``. The worker's side writes ``emit(event=Event.BUILT, ...)``; the parent reads
``Event(line["event"])``. Imports nothing of the course."""

from __future__ import annotations

from enum import Enum


class Event(str, Enum):
    """What a worker tells of its progress."""
    READY = "ready"                # a warm worker is up (apart)
    END = "end"                    # a worker's task has ended (apart)
    BUILD = "build"                # the device check: a probe builds a program (devcheck)
    BUILT = "built"                # the learner's kernel built; its warnings
    BUILD_ERROR = "build_error"    # it did not compile; the compiler's message
    NO_KERNEL = "no_kernel"        # no kernel function of the exercise's name
    START = "start"                # a case (or a device check's item) starts
    RESULT = "result"              # a case ended: its facts (or an item's status)
    LAUNCH_ERROR = "launch_error"  # the driver refused to launch a case
    RUN_ERROR = "run_error"        # a case failed while it ran
    SPOILED = "spoiled"            # a launch past the driver's size broke the worker's context
    SPEED = "speed"                # a kernel's timing (the speed pass)
    PEAK = "peak"                  # the device's copy bandwidth (the speed pass)
    DONE = "done"                  # every case was run

    def __str__(self) -> str:
        return self.value
