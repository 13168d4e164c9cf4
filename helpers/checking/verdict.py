"""The verdict: the device pass and the Oclgrind pass combined into a report.

- device and Oclgrind both correct and Oclgrind silent: passed;
- the device got it wrong, but Oclgrind, with every check it has, ran those very cases correctly and
  reported nothing: passed, and the learner is told the driver miscompiled a correct kernel (PoCL
  3.x does so with the interleaved tree reduction). Where Oclgrind had to leave its look for
  uninitialized values out, the driver is never blamed: the check fills local memory with two
  patterns in turn, and a kernel whose results change with them read local memory nothing wrote;
- anything else: failed: what Oclgrind found at a line first, then what the device showed in the
  most telling case, then the likely mistake (named only where its model matches the outputs).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..exercises import Exercise
from ..paths import display_path
from ..wording import plural
from .diagnosis import (
    CLEAN,
    describe_case,
    device_failure,
    hints_line,
    indent,
    oclgrind_gap,
    oclgrind_report,
    output_tail,
    outside_a_buffer,
)
from .options import OUTPUT_LIMIT
from .passes import Check, Passes, PassResult, beyond_oclgrind


@dataclass
class CheckReport:
    """The outcome of a check: ``passed`` and the ``message`` a learner reads."""

    name: str
    passed: bool
    message: str
    kernel_path: Path
    seed: int
    device_pass: PassResult | None = None
    oclgrind_pass: PassResult | None = None
    miscompiled: bool = False
    oclgrind_available: bool = True
    speed_pass: PassResult | None = None
    counters: dict | None = None     # the warp model's, where a technique was judged on them
    unjudged: str | None = None      # why the technique could not be judged (then not passed)

    def __str__(self) -> str:
        return self.message

def with_warnings(report: CheckReport) -> CheckReport:
    """The compiler's warnings about the kernel, at their lines, after the verdict."""
    dp = report.device_pass
    if dp is not None and dp.ending.warnings:
        report.message += "\n  The compiler warns:\n" + indent(dp.ending.warnings.splitlines(), "    ")
    return report

def _not_run(dp: PassResult) -> str:
    """A clause for the cases the device does not allow this kernel (too large a work-group)."""
    skipped = dp.not_run()
    if not skipped:
        return ""
    return (f" ({len(skipped)} more not run: " + dp.results[skipped[0]]["not_run"] + ")")


def _looked_at_local(probe: PassResult | None) -> bool:
    """Whether the check's own look at local memory ran (see .poison) on every case it was given."""
    return (probe is not None and bool(probe.poison_ready) and bool(probe.results)
            and all("poison_changes" in r for r in probe.results.values()))


def _uninitialized_clause(op: PassResult, probe: PassResult | None) -> str:
    """What covered the look for uninitialized values when Oclgrind's plugin could not run."""
    why = op.skipped_why or "its plugin for them crashed on this kernel"
    text = f" (Oclgrind could not look for uninitialized values: {why}, a gap in Oclgrind"
    if _looked_at_local(probe):
        return (text + f". Instead, {plural(len(probe.cases), 'case')} ran with local memory starting as "
                f"each of two patterns, with the same results: no result used local memory that "
                f"nothing wrote. Uninitialized private variables were not looked for.)")
    return text + ". Reads of memory nothing wrote were not looked for.)"


def _uninitialized_local(ex: Exercise, where: str, probe: PassResult) -> list[str] | None:
    """Sentences when the results of a case changed with what local memory held before it."""
    changed = [i for i, r in sorted(probe.results.items()) if r.get("poison_changes")]
    if not changed:
        return None
    case = probe.cases[changed[0]]
    return [f"reads local memory that no work-item wrote: on {where}, case {case.label()} gives "
            f"different results when local memory starts as two different patterns (a copy of "
            f"your kernel filled it first; the inputs were the same). Every slot "
            f"of local memory a work-item reads must first be written, in the same run, by a "
            f"work-item of its work-group, with a barrier between. Look at the work-items with "
            f"no element (past n) and at slots past the part of the tile this work-group filled."]


def memory_counts(executed: dict[str, int]) -> tuple[int, int, int]:
    """(reads of global memory, reads of local memory, writes of local memory) among Oclgrind's
    counts of executed instructions: its loads and stores, and the builtins that move memory
    (``vloadN``/``vstoreN`` on either space, one a call; ``async_work_group_copy`` and its strided
    form, one a call for each work-item, a write of local memory when the tile is its
    destination, its first argument: the mangled name's first ``PU3AS3``)."""
    reads = executed.get("load global", 0)
    loads, stores = executed.get("load local", 0), executed.get("store local", 0)
    for what, n in executed.items():
        if not what.startswith("call "):
            continue
        local, other = what.find("PU3AS3"), what.find("PU3AS1")
        if "async_work_group" in what and local >= 0:
            if other < 0 or local < other:
                stores += n
            else:
                loads += n
        elif "vload" in what:
            loads += n if local >= 0 else 0
            reads += n if other >= 0 else 0
        elif "vstore" in what and local >= 0:
            stores += n
    return reads, loads, stores


def covers_exactly(case: dict) -> bool:
    """Whether a launch's global size is the data's own (no work-item past the data): its
    ``params``' width x height, n x m (a matrix product's columns and rows), n x n or n."""
    g, p = tuple(case.get("global") or ()), case.get("params") or {}
    if len(g) == 2:
        dims = ((p["width"], p["height"]) if "width" in p and "height" in p else
                (p["n"], p["m"]) if "n" in p and "m" in p else (p["n"], p["n"]) if "n" in p
                else None)
    else:
        dims = (p["n"],) if "n" in p and len(g) == 1 else None
    return dims is not None and g == tuple(dims)


def _exact_launches(op: PassResult) -> dict[str, int]:
    """The counts summed over the launches that cover their data exactly."""
    from .oclgrind import summed
    return summed(found for case, found in op.launch_counts if covers_exactly(case))


def _tile_unused(ex: Exercise, op: PassResult) -> str | None:
    """A sentence when an exercise about its tile got right values without it: Oclgrind counted
    no read or no write of local memory, or fewer reads of the tile per read of global memory
    than ``ex.tile.reads`` (a tile written and read once, the work done from global memory)."""
    if ex.tile is None or op.executed is None:
        return None
    reads, loads, stores = memory_counts(op.executed)
    exact = _exact_launches(op)
    if exact and loads and stores:   # the ratio where no work-item lies past the data (those may
        reads, loads, _ = memory_counts(exact)   # load clamped duplicates they never read back)
    counted = f"Oclgrind counted every instruction of {plural(len(op.cases), 'case')}"
    remedy = ("Load the data each work-group shares into local memory once, wait at a barrier, "
              "then compute from the tile.")
    if loads and stores:
        if ex.tile.reads is None or not reads or loads >= ex.tile.reads * reads:
            return None
        return (f"gives the right values, but its tile carries few of its reads: {loads:,} reads "
                f"of local memory for {reads:,} of global memory ({counted}), where the tile "
                f"should carry at least {ex.tile.reads:g} for each read of global memory. "
                f"{remedy}")
    what = ("never reads or writes local memory" if not loads and not stores else
            "never reads local memory" if not loads else "never writes local memory")
    return f"gives the right values, but {what} ({counted}): this exercise is about the tile. {remedy}"


def reproduce_line(name: str, seed: int) -> str:
    """The last line of a failed check that ran: how to run it again on the same inputs."""
    return f"(inputs from seed {seed}: python -m helpers check {name} --seed {seed})"


class _Verdict:
    """The two passes' facts, and the steps that turn them into a report: the first step that
    has something to say gives it (see :func:`verdict`)."""

    def __init__(self, chk: Check, passes: Passes, where: str):
        ex, dp, op = chk.ex, passes.device, passes.oclgrind
        self.ex, self.name, self.shown, self.where = ex, ex.name, display_path(chk.path), where
        self.dp, self.op, self.seed, self.path = dp, op, chk.seed, chk.path
        self.probe = passes.probe
        self.run_timeout = chk.options.run_timeout
        self.oclgrind_run_timeout = chk.options.oclgrind_run_timeout
        self.n_small = len(op.cases) if op else 0
        self.oclgrind_clean = op is not None and op.all_ok() and not op.findings
        self.device_ok = dp.all_ok()
        self.gap = oclgrind_gap(op)

    def failed(self, lines: list[str]) -> CheckReport:
        """The failed report: the diagnosis's lines, which hint fits, how to reproduce the
        inputs."""
        body = indent(lines)
        hint = hints_line(self.ex, body)
        msg = "\n".join([f"{self.name} failed ({self.shown}, on {self.where}):", body]
                        + ([indent([hint])] if hint else [])
                        + [reproduce_line(self.name, self.seed)])
        return CheckReport(self.name, False, msg, self.path, self.seed, self.dp, self.op,
                           oclgrind_available=self.op is not None)

    def beside_a_gap(self) -> CheckReport | None:
        """Right on the device where Oclgrind has a gap: passed on the device alone, and said so."""
        if self.device_ok and self.gap:
            line = (f"✔ {self.name} passed on the device: "
                    f"{plural(len(self.dp.cases) - len(self.dp.not_run()), 'case')} "
                    f"correct on {self.where}{_not_run(self.dp)}. {self.gap}")
            return CheckReport(self.name, True, line, self.path, self.seed, self.dp, self.op,
                               oclgrind_available=False)
        return None

    def on_local_memory(self) -> CheckReport | None:
        """The results changed with what local memory held, or an exercise about its tile never
        used it."""
        found = _uninitialized_local(self.ex, self.where, self.probe) \
            if self.probe is not None else None
        if found is not None:   # the results changed with what local memory held: never passed
            return self.failed(found + device_failure(self.ex, self.dp, self.run_timeout))
        untouched = _tile_unused(self.ex, self.op) \
            if self.device_ok and self.oclgrind_clean else None
        if untouched is not None:
            return self.failed([untouched])
        return None

    def passed(self) -> CheckReport | None:
        """Right on the device and clean on Oclgrind (or no Oclgrind here)."""
        if self.device_ok and (self.op is None or self.oclgrind_clean):
            ran = len(self.dp.cases) - len(self.dp.not_run())
            line = (f"✔ {self.name} passed: {plural(ran, 'case')} correct on "
                    f"{self.where}{_not_run(self.dp)}")
            if self.op is None:
                from ..platforms import oclgrind_missing
                line += ". " + oclgrind_missing()
            else:
                clean = CLEAN if not self.op.skipped_plugin else CLEAN.replace(
                    ", uninitialized value or", " or")
                line += f"; Oclgrind: {self.n_small} small cases correct, {clean}."
                if self.op.skipped_plugin:
                    line += _uninitialized_clause(self.op, self.probe)
            return CheckReport(self.name, True, line, self.path, self.seed, self.dp, self.op,
                               oclgrind_available=self.op is not None)
        return None

    def partial_look(self) -> CheckReport | None:
        """Wrong on the device, right on Oclgrind without its look for uninitialized values:
        never passed."""
        if not self.device_ok and self.oclgrind_clean and self.op.skipped_plugin:
            # Oclgrind ran the cases right, but without its look for uninitialized values, and the
            # check's own look at local memory (above) found nothing or could not be made: the driver
            # is not blamed, and a wrong result on the device is never passed on a partial look.
            looked = ("local memory starting as two different patterns gave the same results, but "
                      "private variables were not looked at" if _looked_at_local(self.probe) else
                      "nor could this check look at local memory itself")
            found = [f"gives wrong results on {self.where}, and right ones on Oclgrind, a reference OpenCL "
                     f"implementation; but Oclgrind could not look for reads of memory nothing wrote "
                     f"({self.op.skipped_why or 'its plugin for them crashed'}; {looked}), so this check "
                     f"cannot tell a driver's miscompile from such a read. Look for a value read "
                     f"before it was written (a private variable not set on every path, a slot of "
                     f"local memory no work-item filled)."]
            return self.failed(found + device_failure(self.ex, self.dp, self.run_timeout))
        return None

    def refereed(self) -> CheckReport | None:
        """Wrong on the device, clean on Oclgrind over the same cases: the driver miscompiled a
        correct kernel."""
        if not self.device_ok and self.oclgrind_clean:
            dp, op = self.dp, self.op
            wrong_cases = set(dp.failing())
            if self.dp.ending.crashed_in is not None:
                wrong_cases.add(self.dp.ending.crashed_in)
            refereed = {dp.cases[i].key() for i in wrong_cases if 0 <= i < len(dp.cases)}
            crashed_in = dp.ending.crashed_in
            crash_outside_cases = crashed_in is not None and not 0 <= crashed_in < len(dp.cases)
            ran = {c.key() for i, c in enumerate(op.cases) if not op.results.get(i, {}).get("not_run")}
            # failing cases Oclgrind cannot run (too much work, or a work-group or local memory
            # past its limits): refereed by the failing cases it did run (a wrong answer at every
            # size, as a miscompiled kernel gives), never alone
            too_big = [self.dp.cases[i] for i in sorted(wrong_cases) if 0 <= i < len(self.dp.cases)
                       and self.dp.cases[i].key() not in ran]
            big_ok = all(beyond_oclgrind(self.ex, c) for c in too_big) and bool(refereed & ran)
            if (refereed <= ran or big_ok) and (refereed or crash_outside_cases):
                what = "crashed" if self.dp.ending.crashed_in is not None else \
                    f"gave wrong results in {len(wrong_cases)} of {plural(len(self.dp.cases), 'case')}"
                if too_big:
                    what += (f" (Oclgrind re-ran the {len(refereed & ran)} of them within its "
                             f"limits)")
                msg = (f"✔ {self.name} passed, with a warning about the device: on {self.where} your kernel "
                       f"{what}, but Oclgrind, a reference OpenCL implementation that checks every "
                       f"access, ran the same cases correctly and found {CLEAN}. Your kernel is "
                       f"correct: the driver ({self.dp.device.platform_version.split('  ')[0]}) "
                       f"miscompiled it, so do not trust its results on that device. What the device "
                       f"did:\n" + indent(device_failure(self.ex, self.dp, self.run_timeout,
                                                         mistakes=False)))
                return CheckReport(self.name, True, msg, self.path, self.seed, self.dp, self.op,
                                   miscompiled=True)
        return None

    def what_went_wrong(self) -> list[str]:
        """The failure's lines: the most certain finding first."""
        # The most certain finding first: Oclgrind's (a divergent barrier, a race, an access outside a
        # buffer, at its line self.where Oclgrind knows it), then what the device showed. After a race or a
        # divergent barrier the device's results are undefined: a mistake read from their pattern
        # would be a guess.
        certain = self.op is not None and any(f.kind != "other" for f in self.op.findings)
        undefined = self.op is not None and any(f.kind in ("race", "divergent_barrier", "divergence")
                                           for f in self.op.findings)
        outside = outside_a_buffer(self.op)
        lines = device_failure(self.ex, self.dp, self.run_timeout, mistakes=not undefined,
                               outside=outside, found=certain)
        if self.op is not None:
            found = oclgrind_report(self.ex, self.op, self.shown)
            lines = found + lines if certain else lines + found
            unlaunched = {self.dp.cases[i].key() for i in self.dp.not_run()}
            wrong_there = [i for i in self.op.failing() if self.op.cases[i].key() in unlaunched]
            if self.device_ok and (wrong_there or unlaunched and self.op.findings):
                # right wherever the device could launch it; Oclgrind ran the larger work-groups the
                # contract allows, and there it is wrong
                lines.insert(0, f"is right on {self.where} at every work-group size it allows this kernel, "
                             f"but the contract allows larger ones, which Oclgrind ran: "
                             + ("see what it reports." if self.op.findings else "the results are wrong:"))
                for i in wrong_there[:1]:
                    lines.extend("  " + x for x in describe_case(self.ex, self.op.cases[i],
                                                                 self.op.results[i],
                                                                 not undefined, certain))
            elif self.device_ok:
                # Correct on the device but not clean: the device hid a real bug.
                if outside:
                    lines.insert(0, f"gives the right values on {self.where}, but only by luck: it reads or "
                                 f"writes outside its buffers, which this device silently ignored "
                                 f"(another device may crash or corrupt memory).")
                elif self.op.findings:
                    lines.insert(0, f"gives the right values on {self.where}, but only by luck: the "
                                 f"results depend on behaviour OpenCL does not promise.")
                elif self.op.ending.flooded:
                    lines.insert(0, f"gives the right values on {self.where}, but printed more than "
                                 f"{OUTPUT_LIMIT >> 20} MiB on Oclgrind and was stopped there: "
                                 f"remove the printf, or print from one work-item only.")
                elif self.op.ending.hung_in is not None:
                    lines.insert(0, f"did not finish on Oclgrind within {self.oclgrind_run_timeout:g} s "
                                 f"although it ran on {self.where}: does a loop depend on another "
                                 f"work-item's progress?")
                elif self.op.ending.crashed_in is not None or self.op.ending.build_error:
                    lines.insert(0, "runs on the device, but Oclgrind could not run it:\n"
                                 + (self.op.ending.build_error or output_tail(self.op)
                                    or f"it stopped with exit code {self.op.ending.exit_code} and no message "
                                       f"(a crash inside Oclgrind)"))
                elif self.op.failing():
                    lines.insert(0, f"gives the right values on {self.where}, but wrong ones on Oclgrind, "
                                 f"another correct OpenCL implementation: the kernel relies on "
                                 f"behaviour OpenCL does not promise (the order work-items run in?).")
                    i = self.op.failing()[0]
                    lines.extend("  " + s for s in describe_case(self.ex, self.op.cases[i],
                                                                 self.op.results[i]))
            elif self.gap:
                lines.append(self.gap)
        else:
            from ..platforms import oclgrind_missing
            lines.append(f"({oclgrind_missing()} So it could not point at the line.)")
        return lines


def verdict(chk: Check, passes: Passes, where: str) -> CheckReport:
    """The check's report from its passes (see the module docstring); ``where``: the device, as
    the report names it."""
    v = _Verdict(chk, passes, where)
    return (v.beside_a_gap() or v.on_local_memory() or v.passed() or v.partial_look()
            or v.refereed() or v.failed(v.what_went_wrong()))


