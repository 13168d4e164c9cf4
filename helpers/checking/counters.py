"""The warp model's counters for an exercise's kernel: what a GPU's warps would do with its memory
accesses and branches (:mod:`helpers.warp`, docs/warp-model.md), from one representative case run
on Oclgrind with the model's plugin loaded, in a worker apart from the notebook (the Oclgrind
pass's machinery: :func:`.passes.run_pass`, with the plugin in the worker's environment).

    counters("transpose", solutions=True)["local_wavefronts_per_request"]   # 1.0: no conflicts

A model, not a measurement: the counters predict what a GPU's profiler would count (sectors per
request, shared-memory wavefronts, divergent branches), never a time. Where the plugin cannot be
built or loaded, the result says why in one sentence (``available`` False) and nothing raises.

For the lessons (notebooks 06, 08, 09 and 10): :func:`compare` counts a technique exercise's starting
kernel beside the solution (and the learner's kernel once it has passed), and
:func:`model_and_times` sets the counter its technique is about beside each kernel's time on the
learner's device (``plots.model_beside_time`` draws it).
"""

from __future__ import annotations

import json
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path

from .. import settings as course_settings
from .. import workers
from ..exercises import Case, Exercise, get
from ..exercises.passed import has_passed
from ..kernels import KERNELS, display_path, kernel_path, solution_file
from ..warp import build
from . import learner
from .options import CheckOptions
from .passes import Check, PassPlan, beyond_oclgrind, run_pass

# the model's settings, read by the plugin (the hardware it stands for)
SETTINGS = {"warp_size": "COURSE_WARP_SIZE", "banks": "COURSE_WARP_BANKS",
            "bank_bytes": "COURSE_WARP_BANK_BYTES"}
OUT_NAME = "warp.jsonl"
KEYS = ("global_sectors_per_request", "global_ideal_sectors_per_request",
        "global_load_sectors_per_request", "global_store_sectors_per_request",
        "local_wavefronts_per_request", "local_ideal_wavefronts_per_request",
        "branches", "divergent_branches", "private_accesses", "private_requests")
_lock = threading.Lock()    # one run at a time per process: they share the output folder
_read_to: dict[Path, int] = {}   # each worker's counts file: how far this process has read it


def _new_counts(out: Path) -> str:
    """What the worker's plugin wrote to ``out`` since this process last read it (a warm worker
    keeps its file from one request to the next)."""
    try:
        data = out.read_bytes()
    except OSError:
        return ""
    start = _read_to.get(out, 0) if len(data) >= _read_to.get(out, 0) else 0
    _read_to[out] = len(data)
    return data[start:].decode("utf-8", "replace")


def representative_case(ex: Exercise, warp_size: int = 32) -> Case:
    """The case the counters come from: one of the small cases Oclgrind runs, whose work-groups
    hold whole warps if any does (a warp cut short by the work-group's end is no GPU's usual
    case), the largest of those (moderate: the small cases are at most a few thousand
    work-items)."""
    small = [c for c in ex.cases if c.small and not beyond_oclgrind(ex, c)] or \
        [c for c in ex.cases if not beyond_oclgrind(ex, c)] or list(ex.cases)

    def whole(c: Case) -> bool:
        items = 1
        for s in c.local_size:
            items *= s
        return items >= warp_size and items % warp_size == 0
    return max(small, key=lambda c: (whole(c), c.work_items))


def _unavailable(why: str, **more) -> dict:
    return {"available": False, "why": why, **{k: None for k in KEYS}, "worst": {}, **more}


def counters(name: str, kernel: str | Path | None = None, solutions: bool = False,
             case: Case | None = None, *, warp_size: int | None = None, banks: int | None = None,
             seed: int | None = None, build_options: tuple[str, ...] | None = None,
             owner: str = "", submission: learner.Submission | None = None) -> dict:
    """The warp model's counters for exercise ``name``'s kernel (``kernel``; default
    ``kernels/NAME.cl``, ``solutions/NAME.cl`` with ``solutions``) on ``case`` (default
    :func:`representative_case`). ``warp_size``, ``banks``: another GPU's (default 32 and 32, or
    ``COURSE_WARP_SIZE`` and ``COURSE_WARP_BANKS``). Returns a dict: ``available`` (and ``why``
    when not), ``global_sectors_per_request`` (4.0 for neighbouring floats, 32.0 when each lane
    touches a sector of its own), ``local_wavefronts_per_request`` (1.0 without bank conflicts),
    ``branches`` and ``divergent_branches`` (conditional branches executed by warps, and those
    whose lanes went different ways), ``private_accesses`` (lane accesses to private memory:
    arrays the compiler could not keep in registers), their ideals, ``counts`` (the raw counts
    by address space and operation), ``worst`` (by counter: the source line of the worst
    instruction and its value), ``launches`` (the plugin's record of each launch)."""
    ex = get(name)
    if kernel is None and ex.study_file:
        kernel = KERNELS / "studies" / ex.study_file
    path = Path(kernel) if kernel is not None else kernel_path(name, solutions=solutions)
    if submission is not None:       # a check's: the text it read, never the file again
        path = submission.path
    shown = display_path(path)
    if submission is None:
        if not path.is_file():
            return _unavailable(f"there is no kernel file {shown}", exercise=name,
                                kernel_file=shown)
        try:
            submission = learner.Submission(path, learner.kernel_text(path, shown))
        except learner.RefusedFile as e:
            return _unavailable(str(e), exercise=name, kernel_file=shown)
    settings = {k: str(v) for k, v in (("warp_size", warp_size), ("banks", banks)) if v}
    warp = int(settings.get("warp_size") or course_settings.number(SETTINGS["warp_size"]))
    chosen = case or representative_case(ex, warp)
    about = {"exercise": name, "kernel_file": shown, "case": chosen.label()}
    built = build.plugin()
    if built.path is None:
        return _unavailable(built.why, **about)
    from ..device import DeviceSpec, oclgrind_device
    grind = oclgrind_device()
    if grind is None:
        return _unavailable("Oclgrind, which runs the warp model, is not installed", **about)
    with _lock:
        options = technique_build(ex) if build_options is None else build_options
        return _run(ex, submission, chosen, built.path, settings, seed, about,
                    DeviceSpec.of(grind), list(options), owner)


def technique_build(ex: Exercise) -> tuple[str, ...]:
    """The build options of the counters' run: the technique's (none without one)."""
    return ex.technique.build if ex.technique is not None else ()


def _run(ex: Exercise, submission: learner.Submission, case: Case, plugin: Path, settings: dict,
         seed: int | None, about: dict, spec, build_options: list[str], owner: str) -> dict:
    # the plugin writes into the worker's own folder ("{dir}": the one place a graded worker's
    # sandbox lets it write), never into this process's /tmp, which a sandbox does not show
    env = {"OCLGRIND_PLUGINS": str(plugin), "COURSE_WARP_OUT": "{dir}/" + OUT_NAME,
           **{SETTINGS[k]: v for k, v in settings.items()}}
    options = CheckOptions(owner=owner)
    chk = Check(ex, submission, secrets.randbits(31) if seed is None else seed, options,
                workers.Lease())
    result = run_pass(chk, spec, [case], PassPlan(options.oclgrind_run_timeout, env=env,
                                                   build_options=tuple(build_options)))
    text = _new_counts(result.worker_dir / OUT_NAME) if result.worker_dir else ""
    launches = [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]
    chk.lease.release(result.ended_cleanly())
    if result.ending.build_error:
        first = result.ending.build_error.strip().splitlines()[0] if result.ending.build_error.strip() else ""
        return _unavailable(f"the kernel did not build ({first})", **about,
                            build_error=result.ending.build_error)
    if not launches:
        said = next((x.strip() for x in result.ending.output.splitlines()
                     if "plugin" in x.lower()), "")
        why = ("Oclgrind ran the kernel but the warp model reported nothing"
               + (f" ({said})" if said else " (its plugin could not be loaded, or the kernel "
                  "never ran)"))
        return _unavailable(why, **about)
    facts = summary(launches)
    ok = result.results.get(0, {}).get("ok")
    return {"available": True, "why": None, **about, **facts, "correct": ok,
            "launches": launches}


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 4) if b else None


def summary(launches: list[dict]) -> dict:
    """The counters of the plugin's launches, summed, and their ratios."""
    counts: dict[str, dict[str, int]] = {}
    worst: dict[str, dict] = {}
    for launch in launches:
        for what, c in launch["counts"].items():
            mine = counts.setdefault(what, dict.fromkeys(c, 0))
            for k, v in c.items():
                mine[k] = mine.get(k, 0) + v
        for what, w in launch["worst"].items():
            family = "branch" if what == "branch" else what.split()[0]
            if family == "constant":
                continue
            if family not in worst or w["value"] > worst[family]["value"]:
                worst[family] = {"line": w["line"] or None, "column": w["column"] or None,
                                 "value": w["value"], "access": what}

    def total(what: str, field: str) -> int:
        return counts.get(what, {}).get(field, 0)

    g_req = total("global load", "requests") + total("global store", "requests")
    g_sec = total("global load", "units") + total("global store", "units")
    g_ideal = total("global load", "ideal") + total("global store", "ideal")
    l_req = total("local load", "requests") + total("local store", "requests")
    l_wave = total("local load", "units") + total("local store", "units")
    l_ideal = total("local load", "ideal") + total("local store", "ideal")
    first = launches[0]
    return {
        "warp_size": first["warp_size"], "banks": first["banks"],
        "global_sectors_per_request": _ratio(g_sec, g_req),
        "global_ideal_sectors_per_request": _ratio(g_ideal, g_req),
        "global_load_sectors_per_request": _ratio(total("global load", "units"),
                                                  total("global load", "requests")),
        "global_store_sectors_per_request": _ratio(total("global store", "units"),
                                                   total("global store", "requests")),
        "global_requests": g_req, "global_sectors": g_sec,
        "local_wavefronts_per_request": _ratio(l_wave, l_req),
        "local_ideal_wavefronts_per_request": _ratio(l_ideal, l_req),
        "local_requests": l_req, "local_wavefronts": l_wave,
        "branches": total("branch", "requests"),
        "divergent_branches": total("branch", "divergent"),
        "private_accesses": total("private load", "lanes") + total("private store", "lanes"),
        "private_requests": total("private load", "requests") + total("private store", "requests"),
        "global_atomics": total("global atomic", "lanes"),
        "counts": counts, "worst": worst,
        "lines": any(launch["lines"] for launch in launches),
        "branches_classified": all(launch["branches_classified"] for launch in launches),
    }


def table(result: dict) -> str:
    """The counters as a few readable lines (or the one sentence of why there are none)."""
    head = f"{result.get('exercise', '')} ({result.get('kernel_file', '')})"
    if not result["available"]:
        return f"{head}: no warp-model counters: {result['why']}."

    def at(family: str) -> str:
        w = result["worst"].get(family)
        return f"   worst at line {w['line']}" if w and w.get("line") else ""

    def num(x) -> str:
        return "-" if x is None else f"{x:.2f}"
    lines = [f"{head}, case {result['case']}:",
             f"what warps of {result['warp_size']} lanes would do (Oclgrind's warp model: a model, "
             f"not a measurement)" + ("" if result["correct"] is not False else
                                      "; the kernel's results were wrong in this case"),
             f"  global memory   {num(result['global_sectors_per_request'])} sectors per request "
             f"(ideal {num(result['global_ideal_sectors_per_request'])}; "
             f"{result['global_requests']} requests){at('global')}",
             f"  local memory    {num(result['local_wavefronts_per_request'])} wavefronts per "
             f"request (ideal {num(result['local_ideal_wavefronts_per_request'])}; "
             f"{result['local_requests']} requests){at('local')}",
             f"  branches        {result['divergent_branches']} of {result['branches']} warp "
             f"branches diverged{at('branch')}",
             f"  private memory  {result['private_accesses']} lane accesses{at('private')}"]
    if result["worst"] and not result["lines"]:
        lines.append("  (no source lines: Oclgrind had no debug information for this kernel)")
    return "\n".join(lines)


# {{{ the lessons: the kernel an exercise starts from beside its solution

@dataclass(frozen=True)
class Shown:
    """The counter a technique's lesson shows: ``what`` it counts (words an axis carries), read as
    the units per request of the ``access`` kinds of the raw counts (``"global load+global
    store"``), or as the summary's count ``key``, whose ideal is 0 (``zero_ideal``) or none (a
    count of requests, which a kernel needs some of)."""

    what: str
    access: str = ""
    key: str = ""
    zero_ideal: bool = True

    def value(self, facts: dict) -> tuple[float | None, float | None]:
        """(the counter, its ideal) in ``facts`` (a :func:`counters` result)."""
        if self.key:
            return facts.get(self.key), (0.0 if self.zero_ideal else None)
        counts = [(facts.get("counts") or {}).get(k, {}) for k in self.access.split("+")]
        requests = sum(c.get("requests", 0) for c in counts)
        if not requests:
            return None, None
        ideal = sum(c.get("ideal", 0) for c in counts) / requests
        return (round(sum(c.get("units", 0) for c in counts) / requests, 4),
                round(max(ideal, 1.0) if self.access.startswith("local") else ideal, 4))


# the counters a lesson shows beside the time, by name (an exercise's ``technique_shown``)
SHOWN = {
    "sectors": Shown("32-byte sectors per warp request to global memory",
                     access="global load+global store"),
    "local passes": Shown("passes (wavefronts) per warp read of local memory",
                          access="local load"),
    "divergent branches": Shown("warp branches whose work-items went different ways",
                                key="divergent_branches"),
    "private accesses": Shown("work-item accesses to private memory (not registers)",
                              key="private_accesses"),
    "global atomics": Shown("work-items' atomic updates of global memory", key="global_atomics",
                            zero_ideal=False),
    "global requests": Shown("warp requests to global memory (loads and stores)",
                             key="global_requests", zero_ideal=False),
}


def shown(name: str) -> Shown:
    """The counter the lesson of exercise ``name`` shows (ValueError for an exercise that does
    not start from a slow kernel whose technique the model sees)."""
    ex = get(name)
    if ex.performance is None or not ex.performance.given or ex.teaching.shown not in SHOWN:
        raise ValueError(f"{name} does not start from a slow kernel whose technique the warp "
                         f"model counts: {', '.join(sorted(lesson_exercises()))} do")
    return SHOWN[ex.teaching.shown]


def lesson_exercises() -> list[str]:
    """The exercises :func:`compare` serves: a starting kernel, and a counter in :data:`SHOWN`."""
    from ..exercises import exercises
    return [ex.name for ex in exercises()
            if ex.performance is not None and ex.performance.given
            and ex.teaching.shown in SHOWN]


def compare(name: str, seed: int | None = None) -> list[dict]:
    """The warp model's counters of exercise ``name``'s starting kernel
    (``performance.given``), of the learner's ``kernels/NAME.cl`` once its text has passed the
    check, and of the solution where the solutions are present: each on the same case and inputs
    and with the build options its verdict uses. One row each: ``label``, ``role`` (``given``,
    ``yours``, ``solution``), ``kernel`` (the file, as shown), ``record`` (the registry's name
    that runs it: ``NAME:FUNCTION`` for the start), ``path``, ``counters``, and ``value`` and
    ``ideal`` of the counter the lesson shows (:func:`shown`)."""
    ex, about = get(name), shown(name)
    file, function = ex.performance.given
    kernels = [("given", f"{function} (the start)", f"{name}:{function}",
                KERNELS / "studies" / file)]
    mine = kernel_path(name, solutions=False)
    if has_passed(name, mine):
        kernels.append(("yours", "your kernel", name, mine))
    theirs = solution_file(name)
    if theirs is not None:
        kernels.append(("solution", "the solution", name, theirs))
    seed = secrets.randbits(31) if seed is None else seed
    case = representative_case(ex, int(course_settings.number(SETTINGS["warp_size"])))
    rows = []
    for role, label, record, path in kernels:
        facts = counters(record, path, case=case, seed=seed, build_options=technique_build(ex))
        value, ideal = about.value(facts) if facts["available"] else (None, None)
        rows.append({"label": label, "role": role, "kernel": display_path(path),
                     "record": record, "path": path, "counters": facts, "value": value,
                     "ideal": ideal})
    return rows


def model_and_times(ctx, queue, name: str, seed: int | None = None) -> dict:
    """:func:`compare`'s rows, each kernel also timed on ``queue``'s device as the check's speed
    pass times it (:func:`helpers.bench.time_exercise` on the exercise's timing case, the small
    one with the small-size switch; rounds in turn, each kernel's fastest median kept). Returns
    ``exercise``, ``what`` (the counter's words), ``rows`` (with ``seconds``, ``min_seconds``,
    ``max_seconds`` and ``repeats``, or ``error``), ``model_case`` and ``case`` (the launches
    counted and timed), ``environment``, and ``available``: where the model cannot run, False,
    with ``why``, one sentence, and nothing timed."""
    from ..timing import small_sizes

    ex = get(name)
    seed = secrets.randbits(31) if seed is None else seed
    case = ex.performance.small if small_sizes() else ex.performance.case
    return _timed(ctx, queue, name, shown(name).what, compare(name, seed), case, seed)


def exercises_and_times(ctx, queue, entries: tuple, counter: str,
                        seed: int | None = None) -> dict:
    """Kernels that compute the same thing another way, side by side as :func:`model_and_times`
    sets a technique's kernels: notebook 03's ``erosion_1d`` and ``erosion_1d_local``, or a
    study's starting kernel (``"parallel_sum:sum_local"``, from ``kernels/studies/``) and the
    exercise. An entry is a name, or ``(name, model_case, timing_case)`` where the kernels need
    launches of their own; a name alone is counted on the last entry's representative case and
    timed on its bench launch (``Exercise.bench_cases``). Each exercise's kernel is the learner's
    once its text has passed, the solution until then; the counter is ``counter`` of
    :data:`SHOWN`."""
    from ..bench import get_bench_case
    from ..exercises.passed import kernel_and_role

    about = SHOWN[counter]
    seed = secrets.randbits(31) if seed is None else seed
    named = [e if isinstance(e, tuple) else (e, None, None) for e in entries]
    last = get(named[-1][0])
    default_model = representative_case(last, int(course_settings.number(SETTINGS["warp_size"])))
    default_timing = get_bench_case(last.name) if last.bench_cases else None
    rows = []
    for name, model_case, timing_case in named:
        ex = get(name)
        if ex.study_file:
            path, role, label = KERNELS / "studies" / ex.study_file, "given", \
                f"{ex.function} (the start)"
        else:
            path, role = kernel_and_role(name)
            label = f"{name} ({'the solution' if role == 'solution' else 'yours'})"
        facts = counters(name, path, case=model_case or default_model, seed=seed,
                         build_options=technique_build(ex))
        value, ideal = about.value(facts) if facts["available"] else (None, None)
        rows.append({"label": label, "role": role, "kernel": display_path(path), "record": name,
                     "path": path, "counters": facts, "value": value, "ideal": ideal,
                     "case": timing_case or default_timing})
    title = " and ".join(n.split(":")[-1] for n, _, _ in named)
    return _timed(ctx, queue, title, about.what, rows, default_timing, seed)


def _timed(ctx, queue, exercise: str, what: str, rows: list[dict], case: Case | None,
           seed: int) -> dict:
    """``rows`` (:func:`compare`'s) timed on ``queue``'s device on ``case`` (or a row's own
    ``case``), in rounds, each kernel's fastest median kept; nothing timed where the model could
    not count."""
    import pyopencl as cl

    from ..bench import time_exercise
    from ..driver_probe import KernelLeftOut
    from ..kernels import KernelBuildError
    from ..timing import environment
    from .worker_side import SPEED_ROUND_BUDGET_S, SPEED_ROUNDS

    first = rows[0]["counters"]
    result = {"exercise": exercise, "what": what, "rows": rows,
              "model_case": first.get("case"), "environment": environment(queue.device)}
    missing = next((r["counters"] for r in rows if not r["counters"]["available"]), None)
    if missing is not None:
        return {**result, "available": False,
                "why": f"No warp model here, so no figure: {missing['why']}."}
    references: dict = {}
    for r in range(SPEED_ROUNDS):
        for row in rows:
            if "error" in row:
                continue
            try:
                t = time_exercise(ctx, queue, row["record"], row.get("case") or case,
                                  kernel=row["path"],
                                  seed=seed, verify=r == 0, references=references,
                                  budget_s=SPEED_ROUND_BUDGET_S)
            except (AssertionError, cl.Error, KernelBuildError, KernelLeftOut) as e:
                row["error"] = str(e).strip().splitlines()[0] if str(e).strip() else repr(e)
                print(f"{row['label']} ({row['kernel']}) was not timed on "
                      f"{queue.device.name.strip()}: {row['error']}")
                continue
            if "seconds" not in row or t["seconds"] < row["seconds"]:
                row.update({k: t[k] for k in ("seconds", "min_seconds", "max_seconds",
                                              "repeats")})
    cases = {(row.get("case") or case).label() for row in rows}
    return {**result, "available": True, "why": None, "case": "; ".join(sorted(cases))}

# }}}
