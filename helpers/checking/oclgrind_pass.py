"""The Oclgrind pass (:func:`oclgrind_pass`), and the same pass dealt to several Oclgrind workers
side by side (``COURSE_OCLGRIND_WORKERS``): the cases shared out (:func:`shares`), run
(:func:`oclgrind_split`) and gathered back into one pass over all of them (:func:`gathered`,
:func:`merged`), as one worker going through them in order would have given it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..device import DeviceSpec
from ..exercises import Case
from . import oclgrind
from .options import UNINITIALIZED_UP_TO
from .passes import (
    UNOPTIMIZED,
    Check,
    OclgrindResult,
    PassPlan,
    PassResult,
    oclgrind_environment,
    run_pass,
)


def shares(cases: list[Case], workers: int) -> list[list[int]]:
    """``cases``' indices dealt to at most ``workers`` workers, the largest first to the least
    loaded (by work-items: what Oclgrind's time grows with), each share in the cases' order."""
    loads = [0] * max(1, min(workers, len(cases)))
    out: list[list[int]] = [[] for _ in loads]
    for i in sorted(range(len(cases)), key=lambda i: -cases[i].work_items):
        w = loads.index(min(loads))
        out[w].append(i)
        loads[w] += max(cases[i].work_items, 1)
    return [sorted(x) for x in out if x]


class _Either:
    """Set when either of two flags is: the check's stop, or the one :class:`Shares` keeps for
    one share."""

    def __init__(self, outer) -> None:
        import threading
        self.outer, self.own = outer, threading.Event()

    def is_set(self) -> bool:
        return self.own.is_set() or (self.outer is not None and self.outer.is_set())

    def set(self) -> None:
        self.own.set()


class Shares:
    """Oclgrind's shares side by side, each stopped where one worker going through all the cases
    in order would have stopped: once a case has reported, no share goes on past that case (the
    share that reported stops at its end, see :func:`run_pass`); once a case went wrong or
    reported, no share starts an ``anticipated`` case (from that index on: the widest, which one
    worker runs only after clean small cases)."""

    DONE = 1 << 30   # where a share that has run all its cases is

    def __init__(self, parts: list[list[int]], anticipated: int, outer=None) -> None:
        import threading
        self.parts, self.anticipated = parts, anticipated
        self.stops = [_Either(outer) for _ in parts]
        self.at = [idx[0] for idx in parts]      # the case each share is in, or starts next
        self.reported: int | None = None         # the earliest case that reported
        self.went_wrong = False
        self.stopped = [False] * len(parts)      # stopped here, not by the check
        self._lock = threading.Lock()

    def progress(self, k: int):
        def heard(what: str, i: int, ok: bool | None) -> None:
            idx = self.parts[k]
            case = case_of(idx, i) if i >= 0 else None
            with self._lock:
                if what == "start" and case is not None:
                    self.at[k] = case
                elif what == "result" and case is not None:
                    self.at[k] = idx[i + 1] if i + 1 < len(idx) else self.DONE
                    self.went_wrong |= not ok
                elif what == "reported" and case is not None:
                    self.reported = case if self.reported is None else min(self.reported, case)
                    self.went_wrong = True
                self._apply()
        return heard

    def _apply(self) -> None:
        for k, at in enumerate(self.at):
            past = self.reported is not None and at > self.reported
            needless = self.went_wrong and at >= self.anticipated
            if (past or needless) and not self.stops[k].own.is_set() and at != self.DONE:
                self.stopped[k] = True
                self.stops[k].set()


def case_of(idx: list[int], i: int) -> int:
    """The case (an index into all cases) that a share's case index ``i`` names: -1 for its build,
    and its last case for an index past it (a report read from Oclgrind's log after its last case
    ended came from that case)."""
    return idx[min(i, len(idx) - 1)] if i >= 0 else -1


def share_threads(parts: list[list[Case]], last_alone: bool) -> list[int]:
    """Oclgrind's threads for each share: a case's work-groups are what its threads share out (a
    work-group is simulated by one thread), so the last share, when it holds the widest case alone
    (``last_alone``), gets as many as that case has work-groups (two, often: simulating those two
    is what the check waits for), and the other shares split the rest of the cores."""
    from .options import usable_cores
    cores = usable_cores()
    if not last_alone:
        return [max(1, cores // len(parts))] * len(parts)
    groups = max(int(np.prod(c.num_groups)) for c in parts[-1])
    widest = max(1, min(groups, cores // 2))
    rest = max(1, (cores - widest) // (len(parts) - 1))
    return [rest] * (len(parts) - 1) + [widest]


def oclgrind_split(chk: Check, cases: list[Case], run_timeout: float, stop=None,
                   workers: int = 1, anticipated: int | None = None) -> PassResult | None:
    """:func:`oclgrind_pass` over ``cases`` dealt to ``workers`` Oclgrind workers side by side
    (:func:`shares`), gathered into one pass over ``cases`` in their order. The cases from index
    ``anticipated`` on are run only while the others go right (see :class:`Shares`); those that
    did not run are left out of the pass."""
    ahead = anticipated is not None and anticipated < len(cases) and workers > 1
    parts = (shares(cases[:anticipated], workers - 1) + [list(range(anticipated, len(cases)))]
             if ahead else shares(cases, workers))
    if len(parts) <= 1:
        return oclgrind_pass(chk, cases, run_timeout, stop)
    from concurrent.futures import ThreadPoolExecutor

    threads = share_threads([[cases[i] for i in idx] for idx in parts], ahead)
    watch = Shares(parts, len(cases) if anticipated is None else anticipated, stop)
    with ThreadPoolExecutor(len(parts), thread_name_prefix="oclgrind-share") as pool:
        futures = [pool.submit(oclgrind_pass, chk, [cases[i] for i in idx], run_timeout,
                               watch.stops[k], shard=k, threads=threads[k],
                               progress=watch.progress(k)) for k, idx in enumerate(parts)]
        done = [f.result() for f in futures]
    if any(op is None for op in done):
        return None
    stopped_by_check = stop is not None and stop.is_set()
    if not stopped_by_check and any(_referee_gap(op) for op in done):
        # Oclgrind could not simulate this kernel with all its plugins (see oclgrind_pass): what
        # the shares saw before it ran again without one is no sign of the kernel, so the small
        # cases run again as one worker runs them, and the widest after them (see checker._passes)
        return oclgrind_pass(chk, cases[:watch.anticipated], run_timeout, stop)
    for k, op in enumerate(done):
        if watch.stopped[k] and op.ending.cancelled and not stopped_by_check:
            op.ending.cancelled, op.ending.cut_short = False, True   # stopped as one worker would have
    out = gathered(cases, list(zip(parts, done, strict=True)))
    # what one worker going through the cases in order would have: no result after the case that
    # reported first, no anticipated case once a small one went wrong (a share may have finished
    # one before it heard, a stop being seen between two of its events)
    small_wrong = out.reported_in is not None and out.reported_in < watch.anticipated or any(
        not r.get("ok", False) for i, r in out.results.items() if i < watch.anticipated)
    if out.reported_in is not None:
        out.results = {i: r for i, r in out.results.items() if i <= out.reported_in}
        out.ending.done, out.ending.cut_short = False, True
    keep = [i for i in range(len(cases)) if i < watch.anticipated
            or (i in out.results and not small_wrong)]
    if len(keep) < len(cases):   # the anticipated cases not run: as if never asked for
        out.cases = [cases[i] for i in keep]
        out.results = {i: r for i, r in out.results.items() if i in keep}
    if out.reported_in is None:
        out.ending.done = all(i in out.results for i in range(len(out.cases))) and \
            out.ending.crashed_in is None and out.ending.hung_in is None and not out.ending.cancelled
    return out


def merged(first: PassResult, more: PassResult) -> PassResult:
    """Two Oclgrind passes over different cases, as one pass over all of them (the small cases
    run beside the device pass, then the failing ones it found)."""
    n = len(first.cases)
    out = gathered(first.cases + more.cases,
                   [(list(range(n)), first), (list(range(n, n + len(more.cases))), more)])
    out.timing.marks, out.timing.more_marks = first.timing.marks, more.timing.marks
    return out


def gathered(cases: list[Case], parts: list[tuple[list[int], PassResult]]) -> PassResult:
    """Passes over parts of ``cases`` (each with the indices in ``cases`` of its own cases), as one
    pass over ``cases``: a case index of a part (where it hung, crashed, stopped) becomes the index
    in ``cases``; what one part found or suffered, the whole did."""
    first = parts[0][1]
    out = OclgrindResult(first.device, list(cases))

    def where(idx: list[int], i: int | None) -> int | None:
        if i is None or i < 0:
            return i
        return idx[i] if i < len(idx) else len(cases)   # "after its last case": after the last

    def earliest(name: str) -> int | None:
        found = [where(idx, getattr(p.ending, name)) for idx, p in parts
                 if getattr(p.ending, name) is not None]
        return min(found) if found else None

    # a finding's details (the work-group, the work-items) are those of the case that showed it
    # first, as one worker going through ``cases`` in order would have given them
    ordered = sorted(parts, key=lambda part: (part[1].reported_in is None,
                                              case_of(part[0], part[1].reported_in or 0)))
    seen: dict[tuple, oclgrind.Finding] = {}
    for idx, p in ordered:
        out.results.update({idx[i]: r for i, r in p.results.items()})
        for f in p.findings:
            k = (f.kind, f.line, f.col)
            seen[k] = replace(seen[k], count=seen[k].count + f.count) if k in seen else f
        for g in p.gaps:
            if g not in out.gaps:
                out.gaps.append(g)
        out.launch_counts = out.launch_counts + list(p.launch_counts)
        if p.executed is not None:
            out.executed = out.executed or {}
            for k, v in p.executed.items():
                out.executed[k] = out.executed.get(k, 0) + v
        for name in ("build_error", "no_kernel", "internal_error"):
            setattr(out.ending, name, getattr(p.ending, name) or getattr(out.ending, name))
        out.skipped_plugin = p.skipped_plugin or out.skipped_plugin
        out.skipped_why = p.skipped_why or out.skipped_why
        for name in ("cut_short", "flooded", "cancelled"):
            setattr(out.ending, name, getattr(out.ending, name) or getattr(p.ending, name))
    out.findings = list(seen.values())
    codes = [p.ending.exit_code for _, p in parts if p.ending.exit_code is not None]
    out.ending.exit_code = next((c for c in codes if c), codes[0] if codes else None)
    for name in ("hung_in", "crashed_in", "stopped_at"):
        setattr(out.ending, name, earliest(name))
    reports = [case_of(idx, p.reported_in) for idx, p in parts if p.reported_in is not None]
    out.reported_in = min(reports) if reports else None
    out.ending.built = all(p.ending.built for _, p in parts)
    out.ending.done = all(p.ending.done for _, p in parts)
    out.ending.output = "\n".join(p.ending.output for _, p in parts if p.ending.output)
    out.timing.started = min(p.timing.started for _, p in parts)
    out.timing.seconds = max(p.timing.started + p.timing.seconds for _, p in parts) - \
        out.timing.started
    out.ending.warnings, out.timing.warm = first.ending.warnings, all(p.timing.warm for _, p in parts)
    marks = [p.timing.marks for _, p in parts if p.timing.marks]
    if marks:   # the shares' phases as one: asked by the first, each later phase by the last
        out.timing.marks = {k: (min if k in ("started", "asked") else max)(m[k] for m in marks if k in m)
                     for k in set().union(*marks)}
    return out


def oclgrind_pass(chk: Check, cases: list[Case], run_timeout: float,
                  stop=None, first_failure: bool = False, shard: int = 0,
                  threads: int = 0, progress=None) -> PassResult | None:
    """Run ``cases`` on Oclgrind with its checks on; None when Oclgrind is not installed. The
    first cases of at most UNINITIALIZED_UP_TO work-items run with every plugin, those after
    them in a worker without the uninitialized-value plugin (as one worker going through the
    cases in order would: not after a report or a case that stopped the pass). ``shard``: which
    of the check's Oclgrind workers runs them (each its own process, see
    :func:`oclgrind_split`), on ``threads`` threads of its own (0: Oclgrind's default, one per
    core); ``progress``: see :func:`run_pass`."""
    from ..device import oclgrind_device
    grind = oclgrind_device()
    if grind is None:
        return None
    spec = DeviceSpec.of(grind)

    def env(skip: bool = False) -> dict[str, str]:
        e = oclgrind_environment(skip)
        if shard:
            e["COURSE_OCLGRIND_SHARD"] = str(shard)   # another worker key: another process
        if threads:
            e["OCLGRIND_NUM_THREADS"] = str(threads)
        return e
    # the program as written: an optimized build drops a load whose value is never used (a read
    # past the end before the guard), and Oclgrind would never see it
    plan = PassPlan(run_timeout, env=env(), first_failure=first_failure,
                    build_options=UNOPTIMIZED)
    k = next((i for i, c in enumerate(cases) if i and c.work_items > UNINITIALIZED_UP_TO),
             len(cases))
    op = _with_every_plugin(chk, spec, cases[:k], plan, env(True), stop, progress)
    if k == len(cases):
        return op
    if op.findings or not op.ended_cleanly() or op.ending.stopped_at is not None \
            or (stop is not None and stop.is_set()):
        # the larger cases not run, as one worker would have stopped before them
        out = gathered(cases, [(list(range(k)), op)])
        out.ending.done, out.ending.cut_short = False, out.ending.cut_short or bool(op.findings)
        return out

    def later(what: str, i: int, ok: bool | None) -> None:
        if progress is not None:
            progress(what, k + max(i, 0), ok)
    more = run_pass(chk, spec, cases[k:], replace(plan, env=env(True)), stop=stop,
                    progress=later)
    return gathered(cases, [(list(range(k)), op), (list(range(k, len(cases))), more)])


def _with_every_plugin(chk: Check, spec: DeviceSpec, cases: list[Case], plan: PassPlan,
                       without: dict[str, str], stop, progress) -> PassResult:
    """Oclgrind 21.10's uninitialized-value plugin dies (SIGSEGV) on some vector code, e.g. an int4
    accumulator, and stops every work-group at instructions it does not know (``freeze``, which
    LLVM makes of some divisions and selects): when Oclgrind dies by a signal having reported
    nothing, or that plugin says it cannot go on, run again ``without`` it."""
    op = run_pass(chk, spec, cases, plan, stop=stop, progress=progress)
    plugin_gap = _plugin_gap(op)
    if _referee_gap(op) and not op.ending.cancelled:
        op = run_pass(chk, spec, cases, replace(plan, env=without), stop=stop,
                      progress=progress)
        op.skipped_plugin = "uninitialized values"
        op.skipped_why = (f"its plugin for them cannot simulate the instruction "
                          f"{plugin_gap.instruction} that the compiler made of your code"
                          if plugin_gap else "its plugin for them crashed on this kernel")
    return op


def _plugin_gap(op: PassResult) -> oclgrind.Gap | None:
    return next((g for g in op.gaps if g.plugin == "Uninitialized"), None)


def _referee_gap(op: PassResult) -> bool:
    """Oclgrind's uninitialized-value plugin could not go on with this kernel, or Oclgrind died
    having reported nothing: what it saw is the referee's trouble, not the kernel's (see
    :func:`oclgrind_pass`, which then runs it again without that plugin)."""
    return bool(op.skipped_plugin) or _plugin_gap(op) is not None or (
        op.ending.exit_code is not None and op.ending.exit_code < 0 and not op.findings)
