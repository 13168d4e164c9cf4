"""A task for tests of :mod:`helpers.workers`: each request says what the child does."""

from __future__ import annotations

import os
import sys
import time


def warm(device, emit):
    import helpers.checking.worker_side  # noqa: F401  (what a check's worker imports)
    started = os.getpid()

    def serve(req: dict, emit) -> None:
        # a request of another task (the tuner's, in its tests) does what the environment says
        what = req.get("do") or os.environ.get("APART_TASK_DO", "echo")
        emit(event="start", pid=started)
        if what == "echo":
            print("said on stdout")   # must not reach the events
            emit(event="echo", value=req.get("value"))
        elif what == "modules":
            emit(event="modules", loaded=sorted({"matplotlib", "ipywidgets"} & set(sys.modules)))
        elif what == "environ":
            import resource
            emit(event="environ", names=sorted(os.environ), cwd=os.getcwd(), files=os.listdir("."),
                 data=resource.getrlimit(resource.RLIMIT_DATA)[0])
        elif what == "caps":   # the capabilities it holds (a grader's right to mount: none of it)
            with open("/proc/self/status") as f:
                emit(event="caps", **{k: int(v, 16) for k, v in (
                    line.split(":") for line in f if line.startswith("Cap"))})
        elif what == "sleep":
            time.sleep(req.get("seconds", 60))
        elif what == "flood":
            while True:
                print("x" * 1000)
        elif what == "abort":
            print("dying on purpose")
            sys.stderr.write("the driver says: Assertion `x' failed\n")
            sys.stderr.flush()
            os.abort()
        elif what == "raise":
            raise ValueError("the task's own bug")
        elif what == "renew":   # a "built" event every 0.1 s, for ever: each asks for more time
            while True:
                emit(event="built")
                time.sleep(0.1)
        elif what == "nest":   # folders nested past Python's recursion limit and PATH_MAX
            for _ in range(req.get("depth", 3000)):
                os.mkdir("d")
                os.chdir("d")
            emit(event="nested")
        elif what == "fill":   # file after file of 1 MiB in its folder, until the space ends
            written, error, chunk = 0, "", b"0" * (1 << 20)
            try:
                for k in range(req.get("files", 64)):   # 64 MiB: past the bound of the test
                    with open(f"fill-{k}", "wb") as f:
                        f.write(chunk)
                        f.flush()
                        os.fsync(f.fileno())
                    written += len(chunk)
            except OSError as e:
                error = e.strerror
            emit(event="filled", bytes=written, error=error)
    return serve
