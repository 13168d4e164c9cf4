"""The command line: ``python -m helpers setup | lab | devices [--check] | check NAME | counters NAME |
hint NAME [N] | exercises | profile [check NAME] | bench | grade | tune``. ``setup`` and ``lab`` need
nothing installed yet.

Exit codes: 0 success (a check passed), 1 a check failed (the diagnosis is on stdout), 2 a usage
error or no OpenCL device (a sentence on stderr says what to do).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path


def _devices(args: argparse.Namespace) -> int:
    from .device import device_table
    if args.check:
        from .checking.devcheck import brief, check_all, table
        from .driver_facts import FAILING
        outcomes = check_all(args.device)
        print(brief(outcomes) if args.brief else table(outcomes))
        print()
        print(device_table())
        failed = any(r["status"] in FAILING for o in outcomes for r in o["items"].values())
        return 1 if failed and args.strict else 0
    print(device_table())
    return 0


def _exercises(args: argparse.Namespace) -> int:
    from .exercises import exercises
    from .kernels import display_path, kernel_path
    for ex in exercises():
        where = display_path(kernel_path(ex.name, solutions=False))
        print(f"{ex.name:<16} {ex.teaching.notebook:<22} {where}  {ex.teaching.title}")
    return 0


def _hint(args: argparse.Namespace) -> int:
    """One hint at a time, as the notebook's collapsibles give them (``--solution``: the course's
    solution, after the hints)."""
    from .exercises import get
    from .kernels import display_path, solution_file
    try:
        ex = get(args.name)
    except KeyError as e:
        print(f"error: {e.args[0]}", file=sys.stderr)
        return 2
    if args.solution:
        path = solution_file(ex.name)
        if path is None:
            print(f"error: this copy of the course has no solutions/{ex.name}.cl", file=sys.stderr)
            return 2
        print(f"{display_path(path)}:\n\n{path.read_text()}")
        return 0
    if not 1 <= args.number <= len(ex.teaching.hints):
        print(f"error: {ex.name} has hints 1 to {len(ex.teaching.hints)}", file=sys.stderr)
        return 2
    more = (f"(hint {args.number} of {len(ex.teaching.hints)}; the next: python -m helpers hint {ex.name} "
            f"{args.number + 1})" if args.number < len(ex.teaching.hints) else
            f"(the last hint; the solution: python -m helpers hint {ex.name} --solution)")
    print(f"{ex.name}, hint {args.number}: {ex.teaching.hints[args.number - 1]}\n{more}")
    return 0


def _counters(args: argparse.Namespace) -> int:
    """The warp model's counters (exit 1, with the sentence why, when there are none)."""
    from .checking.counters import counters, table
    try:
        result = counters(args.name, args.kernel, bool(args.solutions))
    except KeyError as e:
        print(f"error: {e.args[0]}", file=sys.stderr)
        return 2
    print(json.dumps({k: v for k, v in result.items() if k != "launches"}, indent=1)
          if args.json else table(result))
    return 0 if result["available"] else 1


def _profile_check(args: argparse.Namespace) -> int:
    from .checking import CheckUsageError
    from .checking.profile import one, profile_check, table
    if not args.name:
        print("error: profile check needs the exercise's name, e.g. profile check float_copy",
              file=sys.stderr)
        return 2
    try:
        if args.one:   # the cold check, in the fresh process profile_check starts
            print(json.dumps(one(args.name, args.kernel, args.device, args.solutions)))
            return 0
        record = profile_check(args.name, args.kernel, args.device, args.solutions,
                               args.repeats)
    except CheckUsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(record, indent=1) if args.json else table(record))
    return 0


def _check(args: argparse.Namespace) -> int:
    from . import workers
    from .checking import CheckUsageError, run_check
    from .checking.checker import run_check_printing
    workers.POOL.prepare_after = False   # one check, then this process ends: no worker to keep warm
    values = dict(solutions=args.solutions, device=args.device, seed=args.seed,
                  run_timeout=args.timeout, require_speed=args.require_speed or None)
    from .checking.diagnosis import WIDTH, wrapped
    # wrapped between words at the terminal's width (a terminal breaks a long line inside a word)
    width = shutil.get_terminal_size((WIDTH, 24)).columns - 1 if sys.stdout.isatty() else WIDTH
    try:
        if args.json:
            report = run_check(args.name, args.kernel, **values)
        else:   # a performance exercise's verdict shows before its speed is timed
            report, rest = run_check_printing(args.name, args.kernel, width=width, **values)
    except CheckUsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(report_json(report), indent=1) if args.json else wrapped(rest, width))
    return 0 if report.passed else 1


def report_json(report) -> dict:
    """A check's outcome as JSON (for graders and recorded results): the verdict, the message, the
    seed, the device and, for a performance exercise, the timings and the device's peaks."""
    from .bench import environment
    from .device import find_device
    from .kernels import display_path
    dp = report.device_pass
    out = {"exercise": report.name, "passed": report.passed, "message": report.message,
           "kernel": display_path(report.kernel_path), "seed": report.seed,
           "miscompiled": report.miscompiled}
    if dp is not None:
        out["environment"] = environment(find_device(dp.device))
    if report.speed_pass is not None:
        out["speed"] = report.speed_pass.speed
        out["peak"] = report.speed_pass.peak
    return out


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _grade(args: argparse.Namespace) -> int:
    import signal

    from .checking.grading import GradeUsageError, grade, summary
    from .checking.grading.running import Interrupted
    if hasattr(signal, "SIGTERM"):   # a grade told to stop stops as after Ctrl-C, cleaning up
        signal.signal(signal.SIGTERM, _interrupt)
    if not args.no_sandbox and args.from_command_line:   # an ordinary user's grader starts
        from .checking.scratch import restart_with_own_mounts  # again in mounts of its own,
        restart_with_own_mounts()     # for its workers' tmpfs (where it cannot, the grade says why)
    try:
        grades = grade(args.submissions, args.out, jobs=args.jobs, only=args.only,
                       require_speed=args.require_speed, notebooks=args.notebooks,
                       notebooks_as_root=args.notebooks_as_root,
                       max_archive_mb=args.max_archive_mb, sandbox=not args.no_sandbox,
                       total_timeout=60.0 * args.max_minutes, scratch_mb=args.scratch_mb)
    except GradeUsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Interrupted:
        print(f"\nstopped; written so far: {args.out}/grades.csv, {args.out}/details.json, "
              f"{args.out}/report.html", file=sys.stderr)
        return 130
    learners = list(dict.fromkeys(g.learner for g in grades))
    names = list(dict.fromkeys(g.exercise for g in grades))
    print(summary(grades, learners, names))
    print(f"\nwritten: {args.out}/grades.csv, {args.out}/details.json, {args.out}/report.html")
    return 0


def _profile(args: argparse.Namespace) -> int:
    if args.what == "check":
        return _profile_check(args)
    from .bench import startup_profile
    result = startup_profile(device=args.device, n=args.n, in_process=True)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for stage in result["stages"]:
            print(f"{stage['stage']:<28} {stage['seconds'] * 1e3:10.3f} ms")
    return 0


def _install(args: argparse.Namespace) -> int:
    from .install import lab, setup, setup_here
    if args.command == "setup":
        if args.no_venv:
            return setup_here(check=not args.no_check)
        return setup(args.venv, intel=not args.no_intel, force=args.force)
    return lab(None if args.no_venv else args.venv, intel=not args.no_intel, port=args.port,
               headless=args.headless)


def _bench(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .studies.experiments import by_bench_name, run_all, summary
    known = by_bench_name()
    unknown = set(args.only or []) - set(known)
    if unknown:
        print(f"error: no experiment named {', '.join(sorted(unknown))}; there are "
              f"{', '.join(known)}", file=sys.stderr)
        return 2
    run = run_all(args.device, args.only)
    if args.out:
        out = Path(args.out)
        if args.merge and out.exists():
            # each experiment keeps its own provenance; the file's other experiments stay
            old = json.loads(out.read_text())
            old["experiments"].update(run["experiments"])
            old.setdefault("merged", []).append({"experiments": sorted(run["experiments"]),
                                                 "environment": run["environment"]})
            run = old
        out.write_text(json.dumps(run, indent=1))
    print(summary(run))
    return 0


def _tune(args: argparse.Namespace) -> int:
    from .studies.tuning import TuningFailed, summary, tune_sgemm
    try:
        record = tune_sgemm(args.device, args.budget, args.size, args.strategy)
    except TuningFailed as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.json:   # the record's provenance: the command that wrote it
        record["written_by"] = " ".join(["python -m helpers", *args.argv])
    print(json.dumps(record, indent=1) if args.json else summary(record))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m helpers",
                                     description="The course's helpers from a shell.")
    sub = parser.add_subparsers(dest="command", required=True)
    from .install import add_arguments
    p = sub.add_parser("setup", help="create .venv and install the course into it, with the "
                       "extras this platform gets, then check every device (no make needed)")
    add_arguments(p, lab_too=False)
    p = sub.add_parser("lab", help="setup if needed, then open JupyterLab at the course folder, "
                       "on notebook 00")
    add_arguments(p, lab_too=True)
    _add_checking(sub)
    _add_grading(sub)
    _add_measuring(sub)
    p = sub.add_parser("slides", help="build every notebook's reveal.js deck and the "
                       "facilitator's guides into build/slides/ (they open with no network)")
    p.add_argument("--only", nargs="+", metavar="NN", help="these notebooks (by number or stem)")
    p.add_argument("--out", type=Path, help="the folder (default build/slides)")
    return parser


def _at_least_one(text: str) -> int:
    """An argument that is a whole number of at least 1 (a tmpfs of size 0 is unbounded)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


def _slides(args) -> int:
    from . import slides
    written = slides.build(args.out or slides.DECKS, args.only)
    decks = [p for p in written if p.name.endswith(".slides.html")]
    print(f"{len(decks)} decks and {len(written) - len(decks)} guides in "
          f"{(args.out or slides.DECKS)}; open a deck in a browser (S: the speaker's view)")
    return 0


def _add_checking(sub) -> None:
    """devices, exercises, check, hint."""
    p = sub.add_parser("devices", help="list every OpenCL platform and device with its facts")
    p.add_argument("--check", action="store_true",
                   help="run every kernel the course ships on every device, each device in a "
                        "separate process, and list what passes and what fails")
    p.add_argument("--device", help="with --check: only the devices whose name has this piece")
    p.add_argument("--brief", action="store_true",
                   help="with --check: a sentence per device (what an install prints)")
    p.add_argument("--strict", action="store_true",
                   help="with --check: exit 1 when a device fails a course kernel")
    sub.add_parser("exercises", help="list the exercises and their kernel files")
    p = sub.add_parser("check", help="check an exercise's kernel (exit 0 passed, 1 failed)")
    p.add_argument("name", help="the exercise, e.g. float_copy")
    p.add_argument("--kernel", help="the kernel file (default kernels/NAME.cl)")
    p.add_argument("--solutions", action="store_true", default=None,
                   help="check solutions/NAME.cl instead of kernels/NAME.cl")
    p.add_argument("--device", help="a piece of the device's name (default: the course device)")
    p.add_argument("--seed", type=int, help="the seed of the random inputs (to reproduce a run)")
    p.add_argument("--timeout", type=float, default=30.0,
                   help="seconds the cases may run on the device once built (default 30)")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    p.add_argument("--require-speed", action="store_true",
                   help="a performance exercise (transpose, strided_fix, divergence_fix, "
                        "sgemm_tiled) fails when it is correct but below its speed target (also "
                        "COURSE_REQUIRE_SPEED=1)")
    p = sub.add_parser("counters", help="what a GPU's warps would do with an exercise's kernel "
                                        "(Oclgrind's warp model: sectors per request, bank "
                                        "conflicts, divergent branches, private memory)")
    p.add_argument("name", help="the exercise, e.g. transpose")
    p.add_argument("--kernel", help="the kernel file (default kernels/NAME.cl)")
    p.add_argument("--solutions", action="store_true", help="count solutions/NAME.cl")
    p.add_argument("--json", action="store_true", help="print the counters as JSON")
    p = sub.add_parser("hint", help="an exercise's hints one at a time, then its solution")
    p.add_argument("name", help="the exercise, e.g. float_copy")
    p.add_argument("number", nargs="?", type=int, default=1, help="which hint (default 1)")
    p.add_argument("--solution", action="store_true", help="the course's solution, after the hints")


def _add_grading(sub) -> None:
    """grade."""
    p = sub.add_parser("grade", help="grade a class: every learner's kernels, every exercise")
    p.add_argument("submissions", help="a folder of learners' folders (each with kernels/), or a "
                                       ".zip/.tar/.tar.gz of them")
    p.add_argument("--out", default="grades", help="where grades.csv, details.json and report.html "
                                                   "go (default ./grades)")
    p.add_argument("--jobs", type=int, help="checks at once (default: the number of cores)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="grade only these exercises")
    p.add_argument("--require-speed", action="store_true",
                   help="performance exercises must reach their speed target (timed one at a time)")
    p.add_argument("--notebooks", action="store_true",
                   help="also run each learner's notebooks/ under nbval (solutions off, small sizes, "
                        "a time limit per notebook) and report the first failing cell; run by "
                        "root, each learner's as a user id of their own with no rights")
    p.add_argument("--notebooks-as-root", action="store_true",
                   help="run by root, run the notebooks as root all the same (only on a machine "
                        "that holds nothing else: a notebook can then change anything)")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run learners' kernels and notebooks without the sandbox (bubblewrap): "
                        "only on a machine that holds nothing else")
    p.add_argument("--max-archive-mb", type=float, default=50.0,
                   help="an archive of submissions that would expand past this many MB is refused "
                        "(default 50)")
    p.add_argument("--max-minutes", type=float, default=240.0,
                   help="the whole grade's cap: past it, what is left is marked timed out and what "
                        "was graded is written (default 240)")
    p.add_argument("--scratch-mb", type=_at_least_one, default=256,
                   help="run by root, each check worker's folder is a tmpfs of this many MB, all "
                        "that a learner's code may write there (default 256)")


def _add_measuring(sub) -> None:
    """profile, bench, tune."""
    p = sub.add_parser("profile", help="where the time of a small OpenCL program goes; "
                                        "profile check NAME: where a check's time goes")
    p.add_argument("what", nargs="?", choices=["check"], help="check: profile a check")
    p.add_argument("name", nargs="?", help="with check: the exercise, e.g. float_copy")
    p.add_argument("--kernel", help="with check: the kernel file (default kernels/NAME.cl)")
    p.add_argument("--solutions", action="store_true", default=None,
                   help="with check: check solutions/NAME.cl")
    p.add_argument("--repeats", type=int, default=5, help="with check: warm checks (default 5)")
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--device", help="a piece of the device's name")
    p.add_argument("--n", type=int, default=1 << 22, help="floats to copy (default 2^22)")
    p.add_argument("--json", action="store_true", help="print JSON with provenance")
    p = sub.add_parser("bench", help="run the notebooks' measured experiments, print a summary")
    p.add_argument("--device", help="a piece of the device's name (default: the course device)")
    p.add_argument("--out", help="write the full results, with provenance, to this JSON file")
    p.add_argument("--only", nargs="+", metavar="EXPERIMENT", help="run only these experiments")
    p.add_argument("--merge", action="store_true",
                   help="with --out: replace these experiments in an existing file, keep the others")
    p = sub.add_parser("tune", help="auto-tune a parameterized kernel with kernel_tuner (in a "
                                     "separate process) and keep its best configuration")
    p.add_argument("kernel", choices=["sgemm"], help="the kernel to tune")
    p.add_argument("--budget", type=float, default=60.0,
                   help="seconds the whole tuning may take (default 60; it ends at most 5 s later)")
    p.add_argument("--size", type=int, help="n of the n x n product (default 1024)")
    p.add_argument("--device", help="a piece of the device's name (default: the course device)")
    p.add_argument("--strategy", default="random_sample", help="a kernel_tuner strategy "
                                                                "(default random_sample)")
    p.add_argument("--json", action="store_true", help="print the whole record as JSON")


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse exits 2 on usage errors, 0 on --help
        return int(e.code or 0)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    args.from_command_line = argv is None   # not a call from inside another program
    if args.command in ("setup", "lab"):   # before anything is installed: no pyopencl yet
        return _install(args)
    if args.command == "slides":           # no device needed
        return _slides(args)
    handler = {"devices": _devices, "exercises": _exercises, "check": _check, "hint": _hint,
               "counters": _counters,
               "profile": _profile, "bench": _bench, "grade": _grade,
               "tune": _tune}[args.command]
    from .device import NoDeviceError
    try:
        return handler(args)
    except NoDeviceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
