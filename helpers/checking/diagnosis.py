"""The sentences a learner reads: what a failing case shows, what Oclgrind reported and means,
how fast a passed kernel is against the solution and the device's peak."""

from __future__ import annotations

import re
import signal
import textwrap

import numpy as np

from ..exercises import Buffer, Case, Exercise, Scalar, signature
from ..wording import plural
from . import oclgrind
from .options import OUTPUT_LIMIT
from .passes import PassResult

# a store past the end that the work-items past the data could have made, one element each
UNGUARDED = "work-items with no element must do nothing (guard the store with {guard})"
CLEAN = ("no out-of-bounds access, data race, uninitialized value or divergent barrier")


def _value(x: float | int) -> str:
    if isinstance(x, float):
        if np.isnan(x):
            return "NaN"
        return f"{x:.7g}"
    return str(x)

def _shift(name: str, k: int, told: str) -> list[str]:
    """The sentence for an output that is the answer moved ``k`` places (judge.shifted_by):
    ``told`` "guess" adds the likely slip, "fact" says the shift alone (something else, Oclgrind's
    finding at a line or a named mistake, says why), "" nothing (the results are undefined)."""
    if not told:
        return []
    sign = "+" if k > 0 else "-"
    fact = f"{name}[i] holds the value expected at {name}[i {sign} {abs(k)}]"
    if told == "fact":
        return [fact + "."]
    # which index slipped, the one read or the one stored, the output cannot tell: in a reversal
    # out[i] = in[n - i] moves out by -1 with no "i - 1" in the kernel
    return [f"{fact}: an index is off by {abs(k)}, in where the kernel reads or where it stores."]


def describe_buffer(name: str, f: dict, case: Case, shape: tuple[int, int] | None = None,
                    past_the_end: str = UNGUARDED.format(guard="if (i < n)"),
                    shift: str = "guess") -> list[str]:
    """Sentences for what went wrong in one buffer of one case (see judge.analyse); ``shape``
    (rows, columns) places the elements of a 2-D buffer; ``past_the_end``: what a store past the
    end that the work-items past the data could have made means (:func:`unguarded`; "" where the
    buffer is not one element a work-item: then an index computed past the end); ``shift``: how
    a shifted output is told (see :func:`_shift`)."""
    out: list[str] = []
    n = f["length"]

    def at(i: int) -> str:
        if shape is None or i < 0 or i >= n:
            return f"{name}[{i}]"
        return f"{name}[{i}] (row {i // shape[1]}, column {i % shape[1]})"

    if f.get("leaked"):
        out.append(f"{plural(f['leaked'], 'element')} of {name} "
                   f"{'holds' if f['leaked'] == 1 else 'hold'} the guard value that sits just past "
                   f"the end of an input buffer: the kernel read an input past its end "
                   f"(index n or beyond) and stored what it found.")
    if f.get("tail_changed"):
        first, last = f["tail_first"], f["tail_last"]
        if first == 0 and last == 0:
            out.append(f"wrote {name}[{n}], one element past the end of {name} (it has {n}): an "
                       f"off-by-one in the bound, e.g. i <= n where i < n is meant.")
        elif first == 0 and case.work_items > n and last < case.work_items - n and past_the_end:
            # the overshoot fits the work-items past the data: the store is not guarded
            out.append(f"wrote past the end of {name}: {plural(f['tail_changed'], 'element')} "
                       f"after {name}[{n - 1}] changed, up to {name}[{n + last}]. The launch ran "
                       f"{plural(case.work_items, 'work-item')} for {plural(n, 'element')}: "
                       f"{past_the_end}.")
        elif first == 0:
            out.append(f"wrote past the end of {name}: {plural(f['tail_changed'], 'element')} "
                       f"after {name}[{n - 1}] changed, up to {name}[{n + last}], with "
                       f"{case.work_items} work-items for {n} elements: an index is computed past "
                       f"the end (a wrong row stride or offset?).")
        else:
            out.append(f"wrote far past the end of {name}: elements from {name}[{n + first}] to "
                       f"{name}[{n + last}] changed.")
    if f.get("head_changed"):
        out.append(f"wrote before the start of {name} ({plural(f['head_changed'], 'element')}, "
                   f"down to "
                   f"{name}[-{f['head_last']}]): an index went negative (unsigned wrap-around?).")
    if f.get("input_changed"):
        out.append(f"changed the input {name} ({plural(f['input_changed'], 'element')}, the first "
                   f"{name}[{f['input_changed_first']}]): it is an input and must stay as it was.")
    if f.get("unwritten"):
        k, first = f["unwritten"], f["unwritten_first"]
        if k == n:
            every = "its only element still holds" if n == 1 else f"all {n} elements still hold"
            out.append(f"{name} was never written: {every} the poison value the checker put there "
                       f"before the run. Does the kernel store to {name}?")
        elif k == 1 and first == n - 1:
            out.append(f"the last element, {name}[{n - 1}], was not written: an off-by-one in the "
                       f"bound, e.g. i < n - 1 where i < n is meant.")
        elif f.get("unwritten_is_tail"):
            out.append(f"{name}[{first}] to {name}[{n - 1}] ({k} elements) were not written: the "
                       f"kernel stops short of the end of the data.")
        else:
            out.append(f"{k} of {n} elements of {name} were not written, the first {at(first)}.")
    if f.get("shift"):
        out.extend(_shift(name, f["shift"], shift))
    if f.get("view"):
        out.append(f"{f['view']} is {_value(f['view_got'])}, where the elements add up to "
                   f"{_value(f['view_expected'])}.")
        return out
    if f.get("wrong") and f.get("unchanged") == f["wrong"]:
        every = f"all {n} elements" if f["wrong"] == n else f"{f['wrong']} of {n} elements"
        out.append(f"{every} of {name} still hold their input values, where they should have "
                   f"been updated in place: does the kernel store to {name}?")
    elif f.get("wrong"):
        s = f["wrong_samples"][0]
        more = "; ".join(f"{at(x['index'])} {_value(x['got'])} (expected "
                         f"{_value(x['expected'])})" for x in f["wrong_samples"][1:3])
        out.append(f"{f['wrong']} of {n} elements of {name} are wrong, the first {at(s['index'])}:"
                   f" expected {_value(s['expected'])}, got {_value(s['got'])}"
                   + (f"; also {more}" if more else "") + ".")
    return out

def _always(ex: Exercise, size) -> list[str]:
    """The exercise's size arguments that equal ``size(case)`` in every case of its record."""
    def equal(a: Scalar) -> bool:
        try:
            return all(a.value(c) == size(c) for c in ex.cases)
        except (KeyError, TypeError, ValueError):
            return False
    return [a.name for a in ex.args if isinstance(a, Scalar) and equal(a)]


def store_guard(ex: Exercise, buffer: Buffer) -> str:
    """The condition that keeps the work-items with no element of ``buffer`` from storing, in the
    exercise's own arguments: ``ex.teaching.guard`` where the record gives one; else, where ``buffer``
    holds one element a work-item of the range, ``if (i < n)`` for a 1-D range and ``if (x <
    width && y < height)`` for a 2-D one, named by the size arguments that are its length (its
    columns and rows); "" where it holds none (a partial result a work-group)."""
    if ex.teaching.guard is not None:
        return ex.teaching.guard
    dims = len(ex.cases[0].global_size) if ex.cases else 1
    if dims == 1:
        n = _always(ex, buffer.length)
        return f"if (i < {n[0]})" if n else ""
    if dims == 2 and buffer.shape is not None:
        cols = _always(ex, lambda c: buffer.shape(c)[1])
        # (a square one's rows by another name than its columns, where one fits)
        rows = sorted(_always(ex, lambda c: buffer.shape(c)[0]), key=lambda r: r in cols[:1])
        return f"if (x < {cols[0]} && y < {rows[0]})" if cols and rows else ""
    return ""


def unguarded(ex: Exercise, buffer: Buffer) -> str:
    """What a store past the end of ``buffer`` means where the work-items past the data could have
    made it (the ``past_the_end`` of :func:`describe_buffer`)."""
    if ex.teaching.past_the_end:
        return ex.teaching.past_the_end
    guard = store_guard(ex, buffer)
    return UNGUARDED.format(guard=guard) if guard else ""


def describe_case(ex: Exercise, case: Case, r: dict, mistakes: bool = True,
                  found: bool = False) -> list[str]:
    """Sentences for one failing case, the likely mistake first (``mistakes``: name them, and
    read patterns in the outputs at all: not where they are undefined, after a race; ``found``:
    Oclgrind found something at a line, which says better than a guess where the slip is)."""
    if "run_error" in r:
        return [f"the kernel failed while running on the device: the usual cause is an access "
                f"far outside a buffer (the driver said: {r['run_error']})."]
    if "launch_error" in r:
        return [f"the launch failed: {r['launch_error']}. Are the kernel's arguments those of the "
                f"contract, {signature(ex)}?"]
    out = []

    def size(s: tuple[int, ...]) -> int | str:
        return s[0] if len(s) == 1 else "x".join(map(str, s))

    sizes = {**case.params, "local": size(case.local_size), "groups": size(case.num_groups),
             "global_": size(case.global_size)}
    for name in r.get("mistakes", []) if mistakes else []:
        m = next(x for x in ex.teaching.mistakes if x.name == name)
        extra = m.details(case) if m.details else {}
        out.append("likely mistake: " + m.message.format(**sizes, **extra) + "."
                   + hint_clause(getattr(m, "hint", 0)))
    # a shift is a guess at the slip only where nothing else explains the outputs
    shift = "" if not mistakes else "fact" if found or r.get("mistakes") else "guess"
    buffers = {b.name: b for b in ex.buffers()}
    for name, f in r["buffers"].items():
        b = buffers[name]
        out.extend(describe_buffer(name, f, case, b.shape(case) if b.shape else None,
                                   unguarded(ex, b), shift))
    return out

def oclgrind_gap(p: PassResult | None) -> str | None:
    """A sentence when Oclgrind could not simulate the kernel because the compiler chose an
    instruction Oclgrind's core does not know (a gap in Oclgrind, not a mistake in the kernel).
    A gap of a plugin is not one: the pass ran again without that plugin (see passes)."""
    if p is None:
        return None
    gap = next((g for g in p.gaps if not g.plugin), None)
    if gap is None:
        return None
    name = gap.instruction
    if name.startswith("llvm."):
        from ..driver_facts import oclgrind_intrinsics  # what the compiler meant, and what instead
        what, fix = next((v for k, v in oclgrind_intrinsics().items() if f".{k}." in name + "."),
                         ("an instruction the compiler chose for your code",
                          "write that step another way"))
        knows = f"it does not know {name}, {what}"
    else:
        what, fix = "", "write that step another way"
        knows = f"it stopped at {gap.reason!r}, which the compiler made of your code"
    return (f"Oclgrind could not simulate the kernel: {knows}. That is a gap in Oclgrind, not an "
            f"error in your kernel, but it means out-of-bounds accesses and races were not looked "
            f"for. To have them looked for, {fix} and check again.")

def finding_hints(ex: Exercise, findings: list[oclgrind.Finding]) -> list[str]:
    """The exercise's reading of Oclgrind's reports: the likely mistake behind each kind, in the
    order of the findings."""
    out: dict[str, int] = {}
    for f in findings:
        for hint in ex.teaching.finding_hints:
            if f.kind == hint.kind and (hint.memory is None or f"({hint.memory} memory)" in f.heading) \
                    and (hint.code is None or re.search(hint.code, f.code or "")) \
                    and hint.message not in out:
                out[hint.message] = getattr(hint, "hint", 0)
    return [f"likely mistake: {m}.{hint_clause(n)}" for m, n in out.items()]


HINT_CLAUSE = re.compile(r"\(Hint (\d+) is about this\.\)")


def hint_clause(number: int) -> str:
    """The words after a likely mistake that name the exercise's hint about it (1-based)."""
    return f" (Hint {number} is about this.)" if number else ""


def hints_line(ex: Exercise, message: str) -> str | None:
    """The last line of a failed verdict: which of the exercise's hints to open (they stay behind
    their collapsibles in the notebook, one at a time; in a terminal ``python -m helpers hint``)."""
    if not ex.teaching.hints:
        return None
    named = HINT_CLAUSE.search(message)
    number = int(named.group(1)) if named else 1
    which = f"Hint {number} fits this" if named else "Start with Hint 1"
    return (f"{which} (of {len(ex.teaching.hints)}, above the check cell; in a terminal: "
            f"python -m helpers hint {ex.name} {number}).")

def finding_lines(findings: list[oclgrind.Finding], shown: str, limit: int = 4) -> list[str]:
    lines = [f.format(shown) for f in findings[:limit]]
    if len(findings) > limit:
        lines.append(f"... and {len(findings) - limit} more kinds of report")
    return lines

def indent(lines: list[str], prefix: str = "  ") -> str:
    return "\n".join(prefix + x.replace("\n", "\n" + prefix) for x in lines)


WIDTH = 100     # the columns a verdict is wrapped at: a notebook's output, a wide terminal
_CARET = re.compile(r"^\s*[\^~]+\s*$")     # a compiler's marker under the line above it


def wrapped(message: str, width: int = WIDTH) -> str:
    """``message`` as it is shown: each line longer than ``width`` broken between words (a
    notebook's output, and a terminal, would break it inside a word), its continuation indented
    four more spaces than the line (two more is a line's own detail, such as Oclgrind's line of
    source); a word longer than the line (a path) is never split, nor a line of source that a
    compiler's ``^~~`` marker points into."""
    lines = message.splitlines()
    out = []
    for i, line in enumerate(lines):
        below = lines[i + 1] if i + 1 < len(lines) else ""
        if len(line) <= width or _CARET.match(below):
            out.append(line)
            continue
        lead = line[:len(line) - len(line.lstrip())]
        out.extend(textwrap.wrap(line.strip(), width, initial_indent=lead,
                                 subsequent_indent=lead + "    ", break_long_words=False,
                                 break_on_hyphens=False))
    return "\n".join(out)

def output_tail(p: PassResult, limit: int = 6) -> str | None:
    lines = [x for x in p.ending.output.splitlines() if x.strip()]
    return "\n".join(lines[-limit:]) if lines else None

def most_telling(p: PassResult, failing: list[int], ordinary: int | None = None) -> int:
    """The failing case whose diagnosis says most: one that matches a known mistake, else one with
    a specific fact (a shift, a write past the end), else the one with the smallest share of wrong
    elements (an off-by-one shows in a long array, not in n=1)."""
    def share(i: int) -> float:
        r = p.results[i]
        if "launch_error" in r or "run_error" in r:
            return 2.0
        outs = [f for f in r["buffers"].values() if f["role"] != "in"]
        bad = sum(f.get("unwritten", 0) + f.get("wrong", 0) + f.get("leaked", 0) for f in outs)
        return bad / max(sum(f["length"] for f in outs), 1)

    def specific(i: int) -> bool:
        keys = ("shift", "leaked", "tail_changed", "head_changed", "input_changed")
        return any(f.get(k) for f in p.results[i].get("buffers", {}).values() for k in keys)

    # the record's own cases before the device's extremes (indices from ``ordinary`` on): their
    # sizes read the same on every device
    return min(failing, key=lambda i: (not p.results[i].get("mistakes"), not specific(i),
                                       ordinary is not None and i >= ordinary, share(i), i))

# what a process prints when it hit the check's memory or file-size bound (workers.learner_limits)
_OUT_OF_MEMORY = ("out of memory", "bad_alloc", "Cannot allocate memory", "Buffer allocation failed")
_FILE_TOO_LARGE = ("File too large",)


def crash_sentence(how: str, where: str, building: bool, output: str) -> str:
    """Why the process that built or ran the kernel died, as far as its signal and output tell."""
    from ..workers import CPU_SECONDS, memory_limit_mb
    if building and any(k in output for k in _OUT_OF_MEMORY + _FILE_TOO_LARGE):
        return (f"the compiler ran out of memory building your kernel ({how}; the check allows "
                f"{memory_limit_mb()} MiB): a macro that expands without end, or an enormous "
                f"initializer? Keep macros small and tables short.")
    if how == "SIGXCPU":
        return (f"used more than {CPU_SECONDS} s of CPU time {where} and was stopped: an endless "
                f"loop, or far more work than the exercise needs?")
    if any(k in output for k in _OUT_OF_MEMORY):
        return (f"ran out of memory {where} ({how}; the check allows {memory_limit_mb()} MiB): a "
                f"private or local array far larger than the exercise needs?")
    return (f"crashed the process running it ({how}) {where}: the usual cause is a write (or read) "
            f"far outside a buffer.")


def outside_a_buffer(op: PassResult | None) -> bool:
    """Whether Oclgrind saw the kernel read or write outside a buffer."""
    return op is not None and any(f.kind in ("out_of_bounds_read", "out_of_bounds_write")
                                  for f in op.findings)


# the lines a dying LLVM-based driver prints whatever killed its process (Intel's CPU runtime:
# "PLEASE submit a bug report to https://software.intel.com/...", then a stack dump)
_DRIVER_CRASH_REPORT = re.compile(r"PLEASE submit a bug report|Stack dump|Program arguments:|"
                                  r"^\s*#?\d+\.?\s+(0x[0-9a-fA-F]+|\S+\.so|Running pass)")


def crash_output(output: str, limit: int = 6) -> list[str]:
    """What a crashed process printed, after the verdict's sentences: the last lines of its own
    (the kernel's printf, a message), then the driver's crash report, labelled as the driver's
    (it asks for a bug report whatever crashed the process, the learner's kernel too)."""
    lines = [x for x in output.splitlines() if x.strip()]
    driver = [x for x in lines if _DRIVER_CRASH_REPORT.search(x)]
    own = [x for x in lines if not _DRIVER_CRASH_REPORT.search(x)][-limit:]
    out = ["the process printed before it died:\n" + "\n".join("  " + x for x in own)] if own else []
    if driver:
        out.append("the OpenCL driver's own crash report, which it prints whatever crashed its "
                   "process, the kernel's own mistakes included (not a sign of a driver bug):\n"
                   + "\n".join("  " + x for x in driver[:3]))
    return out


def _crash(p: PassResult, where: str) -> str:
    """The sentence for a device pass whose process died ``where``."""
    sig = -p.ending.exit_code if p.ending.exit_code and p.ending.exit_code < 0 else None
    name = signal.Signals(sig).name if sig and sig in signal.Signals._value2member_map_ \
        else f"exit code {p.ending.exit_code}"
    return crash_sentence(name, where, p.ending.crashed_in < 0, p.ending.output)


def _failing_cases(ex: Exercise, p: PassResult, mistakes: bool, found: bool) -> list[str]:
    """The most telling failing case told, and the others named (see :func:`device_failure`)."""
    failing = p.failing()
    if not failing:
        return []
    first = most_telling(p, failing, len(ex.cases))
    lines = [f"case {p.cases[first].label()}:"]
    lines.extend("  " + s for s in describe_case(ex, p.cases[first], p.results[first],
                                                  mistakes, found))
    hung_case = p.ending.hung_in is not None and 0 <= p.ending.hung_in < len(p.cases) \
        and p.ending.hung_in not in p.results   # told above: not among the cases never run
    unrun = len(p.cases) - len(p.results) - hung_case
    if unrun and p.ending.crashed_in is None:
        were = "was" if unrun == 1 else "were"
        lines.append(f"{plural(unrun, 'case')} after the one that hung {were} not run."
                     if hung_case else
                     f"{plural(unrun, 'later case')} {were} not run after that error.")
    others = [i for i in failing if i != first]
    if others:
        lines.append(f"{plural(len(others), 'more case')} failed: "
                     + "; ".join(p.cases[i].label() for i in others[:4])
                     + ("; ..." if len(others) > 4 else ""))
    return lines


def device_failure(ex: Exercise, p: PassResult, run_timeout: float, mistakes: bool = True,
                   outside: bool = False, found: bool = False) -> list[str]:
    """Sentences for what went wrong in the device pass (empty when it was all correct);
    ``mistakes``: name the likely mistakes the outputs match (see :func:`describe_case`);
    ``outside``: Oclgrind saw the kernel read or write outside a buffer (then a hang is told as
    what such an access can do); ``found``: Oclgrind found something at a line."""
    def label(i: int) -> str:
        return "while building" if i < 0 else (
            "after the last case, as the process exited" if i >= len(p.cases)
            else f"in case {p.cases[i].label()}")

    if p.ending.build_error:
        return ["does not compile:", p.ending.build_error]
    if p.ending.no_kernel:
        found_here = ", ".join(p.ending.no_kernel["found"]) or "none"
        return [f"has no kernel function named {ex.function} (kernels found: {found_here}). The "
                f"contract is: {signature(ex)}"]
    if p.ending.flooded:
        lines = [f"printed more than {OUTPUT_LIMIT >> 20} MiB and was stopped: a printf in a loop, "
                 f"or in every work-item of a large range? Print from one work-item (if "
                 f"get_global_id(0) == 0) and outside loops, then remove the printf."]
        tail = output_tail(p, limit=3)
        return lines + (["its last lines:\n" + tail] if tail else [])
    if p.ending.hung_in is not None and p.ending.stuck_after is not None:
        return [f"was stopped {label(p.ending.hung_in)}: Oclgrind had seen a barrier that not every "
                f"work-item reaches, and the case had not ended after {p.ending.stuck_after:g} s (a "
                f"work-group at such a barrier waits for work-items that never come)."]
    lines: list[str] = []
    if p.ending.hung_in is not None:
        stopped = f"did not finish {label(p.ending.hung_in)} within {run_timeout:g} s and was stopped"
        if not outside or p.ending.hung_in < 0:   # (a hang while building made no access at all)
            return [f"{stopped}: an endless loop? Check that every loop's condition becomes false "
                    f"for every work-item, and that no work-item waits for another."]
        # seen on PoCL: a write past a buffer's end corrupted the process's memory, and the next
        # case hung instead of crashing; the other cases' results still tell what the kernel did
        lines.append(f"{stopped}. An access outside a buffer, which Oclgrind saw, can corrupt the "
                     f"memory of the process running the kernel, which then crashes or hangs: "
                     f"keep every access inside its buffer first; if it still hangs, look for a "
                     f"loop that never ends.")
    if p.ending.crashed_in is not None:   # what the kernel did first; what the process printed last
        lines.append(_crash(p, label(p.ending.crashed_in)))
    lines += _failing_cases(ex, p, mistakes, found)
    return lines + (crash_output(p.ending.output) if p.ending.crashed_in is not None else [])

def oclgrind_report(ex: Exercise, op: PassResult, shown: str) -> list[str]:
    """Oclgrind's findings at their lines, and what the exercise reads in them."""
    if not op.findings:
        return []
    # a divergent barrier leaves the rest undefined: the races and wrong values that follow from
    # it come after it; then accesses outside a buffer, races, uninitialized values
    order = ["divergent_barrier", "divergence", "out_of_bounds_write", "out_of_bounds_read",
             "race", "uninitialized"]
    findings = sorted(op.findings, key=lambda f: (order.index(f.kind) if f.kind in order
                                                  else len(order), f.line is None))
    return (["Oclgrind, which checks every access of every work-item, reports:"]
            + ["  " + x for x in finding_lines(findings, shown)]
            + finding_hints(ex, findings))

def _speed_of(t: dict, perf) -> tuple[float, str]:
    if perf.peak == "compute":
        return t["gflop_per_s"], f"{t['gflop_per_s']:.1f} GFLOP/s"
    return t["gb_per_s"], f"{t['gb_per_s']:.1f} GB/s"

def _rounds_row(t: dict) -> dict:
    """A speed-pass figure as a timed row whose spread is that of its rounds' medians."""
    rounds = t.get("round_seconds") or [t["seconds"]]
    return {"seconds": t["seconds"], "min_seconds": min(rounds), "max_seconds": max(rounds),
            "repeats": len(rounds), "over": f"the medians of {len(rounds)} rounds"}

def speed_report(ex: Exercise, sp: PassResult, dev) -> tuple[list[str], bool | None]:
    """The lines a passed performance exercise adds, and whether the kernel reaches its target
    (``target`` of the solution's speed on this device; None when that could not be measured)."""
    perf = ex.performance
    if not sp.all_ok() and "yours" not in sp.speed or "error" in sp.speed.get("yours", {}):
        tail = (sp.ending.output.strip().splitlines() or [""])[-1]
        why = sp.speed.get("yours", {}).get("error") or \
            ("it did not finish in time" if sp.ending.hung_in is not None else
             f"the timing run stopped: {tail}" if tail else "the timing run stopped")
        return [f"Speed: not measured ({why})."], None
    from ..measure.peaks import Share

    yours = sp.speed["yours"]
    kind = "compute" if perf.peak == "compute" else "copy"
    peak = sp.peak.get("gflop_per_s" if perf.peak == "compute" else "copy_gb_per_s") or 0.0
    case = Case.from_json(yours["case"])
    value, text = _speed_of(yours, perf)
    # the worker measured the peak again where a kernel beat it: one still beaten is named as
    # the yardstick that failed, never printed as a share above 100%
    mine = Share(value, peak, kind, failed=bool(peak) and value > peak)
    lines = [f"Speed ({case.label()}; the best of {yours.get('rounds', 1)} medians of "
             f"{yours['repeats']} runs): {text}" + (f", {mine}." if peak else ".")]
    left_out = sp.peak.get("left_out") or []
    if left_out:   # the driver crashes on a peak kernel: the peak is the best of the others
        lines += [str(x) for x in left_out]
    others = []
    sol = sp.speed.get("solution", {})
    given = sp.speed.get("given", {})

    def share_of(v: float) -> str:
        return f" ({Share(v, peak, kind, failed=v > peak).short()})" if peak else ""

    if "seconds" in sol:
        v, t = _speed_of(sol, perf)
        others.append(f"the solution reaches {t}{share_of(v)}")
    if "seconds" in given:
        v, t = _speed_of(given, perf)
        others.append(f"the kernel the exercise starts from ({perf.given[1]}) reaches {t}"
                      f"{share_of(v)}")
    if others:
        lines.append("On this device " + "; ".join(others) + ".")
    if "seconds" not in sol:
        if "error" in sol:
            lines.append(f"No target to compare with: {sol['error']}.")
        return lines, None
    from ..timing import apart, compare

    mine_row, sol_row = _rounds_row(yours), _rounds_row(sol)
    lines.append(compare("Yours", mine_row, "the solution", sol_row))
    reached = value >= perf.target * _speed_of(sol, perf)[0]
    # the target scaled onto the solution's spread: a miss inside it is noise, not a verdict
    target_row = {k: v / perf.target for k, v in sol_row.items() if k.endswith("seconds")}
    noisy = not reached and not apart(mine_row, {**sol_row, **target_row})
    import pyopencl as cl
    on_gpu = bool(dev.type & cl.device_type.GPU)
    target = f"{perf.target:.0%} of the solution's speed"
    if reached:
        lines.append(f"It reaches the target ({target}).")
    elif noisy:
        lines.append(f"It misses the target ({target}) by less than the runs' spread: other work "
                     f"on this machine may have decided it, so run the check again before you "
                     f"change a correct kernel.")
    elif on_gpu:
        lines.append(f"It does not reach the target ({target}): the exercise's hints say how.")
    else:
        lines.append(f"It does not reach the target here ({target}); on a CPU timings vary "
                     f"from run to run and the GPU's rules do not always decide the speed, so "
                     f"try it on a GPU before you change a correct kernel.")
    return lines, reached
