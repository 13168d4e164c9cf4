"""Record checks' passes for tests that replay the verdict without a device (as kernel_tuner
replays its cache): each right or wrong kernel below is checked for real, and what the verdict
was given (the check, less its exercise's record and workers; its passes; the device's name) is
kept with what it said.

    python tools/record_verdicts.py   # writes tests/recorded/verdicts.pickle

tests/test_replay.py gives the kept passes to helpers.checking.verdict.verdict again and expects
the same verdict; a change to the verdict or the diagnosis shows there without any OpenCL device.
Record again (this command) after a change to the passes' records themselves."""

from __future__ import annotations

import pickle
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT  # noqa: E402

OUT = ROOT / "tests" / "recorded" / "verdicts.pickle"
WRONG = ROOT / "tests" / "wrong"
# (exercise, kernel relative to the course, what the verdict is for)
KERNELS = [
    ("float_copy", "solutions/float_copy.cl", "a right kernel"),
    ("float_copy", "tests/wrong/float_copy/local_id.cl", "a named mistake: the local id"),
    ("float_copy", "tests/wrong/float_copy/no_guard.cl", "a write past the end, seen by Oclgrind"),
    ("float_copy", "tests/wrong/float_copy/writes_input.cl", "an input changed"),
    ("transpose", "solutions/transpose.cl", "a right technique kernel"),
    ("transpose", "tests/wrong/transpose/copied.cl", "a named mistake: a copy"),
    ("transpose", "tests/wrong/transpose/no_barrier.cl", "a data race in local memory"),
    ("parallel_sum", "tests/wrong/parallel_sum/barrier_in_branch.cl", "a divergent barrier"),
]


def main() -> int:
    from helpers.checking import checker as check_run
    from helpers.checking import run_check
    records = []
    for name, kernel, about in KERNELS:
        path = ROOT / kernel
        if not path.is_file():
            print(f"left out (no such kernel): {kernel}")
            continue
        seen = {}
        real = check_run.verdict

        def keep(chk, passes, where, seen=seen, real=real):
            seen["check"], seen["passes"], seen["where"] = chk, passes, where
            seen["report"] = report = real(chk, passes, where)
            seen["passed"], seen["message"] = report.passed, report.message   # as it said then
            return report
        check_run.verdict = keep
        try:
            report = run_check(name, kernel=path, seed=12345)
        finally:
            check_run.verdict = real
        if "check" not in seen:
            print(f"left out (no verdict was asked: {report.message.splitlines()[0]}): {kernel}")
            continue
        records.append({"exercise": name, "kernel": kernel, "about": about,
                        # the check as the verdict saw it, less the exercise's record (its
                        # functions are not kept: the replay takes it by its name) and its workers
                        "check": replace(seen["check"], ex=None, lease=None),
                        "passes": seen["passes"], "where": seen["where"],
                        "passed": seen["passed"], "message": seen["message"]})
        print(f"{kernel}: {'passed' if seen['passed'] else 'failed'}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(pickle.dumps(records))
    print(f"{len(records)} verdicts recorded in {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
