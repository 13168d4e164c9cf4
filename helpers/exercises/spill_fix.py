"""spill_fix (notebook 06), a performance exercise on where data lives inside a compute unit: an
8-tap filter whose history stays in registers (fir_ring, where it starts, keeps it in a private
array that leaves them). Correct from the start; the check times it."""

from __future__ import annotations

import numpy as np

from .common import in_registers
from .model import (
    Buffer,
    Case,
    Compare,
    Exercise,
    Extremes,
    FindingHint,
    Inputs,
    Limits,
    Mistake,
    Outputs,
    Performance,
    Scalar,
    Teaching,
    Technique,
    random_floats,
    register,
    rounded_up,
    study_record,
)

TAPS = 8


def _fir_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"x": random_floats(rng, case["channels"] * case["steps"], -1.0, 1.0),
            "coef": rng.uniform(0.1, 1.0, TAPS).astype(np.float32)}


def fir(taps: np.ndarray, steps: int, channels: int, x: np.ndarray) -> np.ndarray:
    """y[t][c] = sum_k taps[k] x[t - k][c] (x before 0 is 0), summed in double precision (one
    float64 array: the timing child has a bounded memory beside the driver's). Also the
    reference of the registers study (helpers.studies.lessons)."""
    x = x.reshape(steps, channels)
    y = np.zeros(x.shape)
    for k, tap in enumerate(taps.astype(np.float64)):
        if k < steps:
            y[k:] += tap * x[:steps - k]
    return y.ravel()


def _fir(taps: np.ndarray, case: Case, x: np.ndarray) -> np.ndarray:
    return fir(taps, case["steps"], case["channels"], x)


def _filtered(case: Case, inputs: Inputs) -> Outputs:
    return {"y": _fir(inputs["coef"], case, inputs["x"])}


def _taps_reversed(case: Case, inputs: Inputs) -> Outputs:
    return {"y": _fir(inputs["coef"][::-1], case, inputs["x"])}


def _shifted_newest_first(case: Case, inputs: Inputs) -> Outputs:
    """A shift register moved newest first (h1 = h0; h2 = h1; ...): every older slot then holds
    the previous sample, so y[t] = coef[0] x[t] + (coef[1] + ... + coef[7]) x[t-1]."""
    c = inputs["coef"].astype(np.float64)
    return {"y": _fir(np.array([c[0], c[1:].sum()]), case, inputs["x"])}


def _stored_before_the_shift(case: Case, inputs: Inputs) -> Outputs:
    """h0 = the new sample before the shift: h1 then holds x[t] too and x[t-7] falls out, so
    y[t] = (coef[0] + coef[1]) x[t] + coef[2] x[t-1] + ... + coef[7] x[t-6]."""
    c = inputs["coef"].astype(np.float64)
    return {"y": _fir(np.concatenate([[c[0] + c[1]], c[2:]]), case, inputs["x"])}


def fir_case(channels: int, steps: int, local: int, small: bool = True) -> Case:
    return Case((rounded_up(channels, local),), (local,), {"channels": channels, "steps": steps},
                small=small)


def _fir_cases() -> tuple[Case, ...]:
    rows = [(256, 16, 64), (1000, 12, 128), (77, 9, 32), (5, 20, 1), (300, 3, 16), (64, 1, 64),
            (2049, 10, 256), (130, 40, 8), (1 << 14, 64, 128)]
    return tuple(fir_case(ch, st, loc, small=ch * st <= 40_000) for ch, st, loc in rows)


def _fir_extremes(limits: Limits) -> tuple[Case, ...]:
    local = limits.widest_1d()
    return (fir_case(local + 3, 9, local, small=False), fir_case(local // 2 + 1, 11, local,
                                                                  small=False))


register(Exercise(
    name="spill_fix",
    args=(
        Buffer("x", np.float32, "in", lambda c: c["channels"] * c["steps"],
               shape=lambda c: (c["steps"], c["channels"])),
        Buffer("y", np.float32, "out", lambda c: c["channels"] * c["steps"],
               shape=lambda c: (c["steps"], c["channels"])),
        Buffer("coef", np.float32, "in", lambda c: TAPS, memory="constant"),
        Scalar("channels", np.uint32, lambda c: c["channels"]),
        Scalar("steps", np.uint32, lambda c: c["steps"]),
    ),
    cases=_fir_cases(),
    make_inputs=_fir_inputs,
    reference=_filtered,
    performance=Performance(fir_case(1 << 15, 128, 128, small=False),
                            fir_case(1 << 13, 64, 128, small=False),
                            given=("registers.cl", "fir_ring")),
    contract=("x and y hold `steps` rows of `channels` floats (sample t of signal c at `[t * "
              "channels + c]`); `y[t][c] = coef[0] x[t][c] + ... + coef[7] x[t-7][c]`, samples "
              "before t = 0 taken as 0; one work-item per signal, the global size may exceed "
              "channels; the history kept in registers, not in a private array indexed at run time;"
              " timed"),
    teaching=Teaching(
        title="An 8-tap filter whose history stays in registers",
        notebook="06-registers-and-unrolling",
        hints=(
            "Private accesses still counted: an array, or an index computed at run time, is left in the "
            "loop. A read past `x` or `y`: work-items with `c >= channels` have no signal. Wrong first "
            "outputs: the samples before the first are `0.0f`.",
            "Wrong outputs, right taps: move the samples oldest first (`h7` takes `h6`, down to `h1` "
            "taking `h0`), then the new one into `h0`.",
            "Taps reversed: `coef[0]` goes with `h0`, the newest.",
        ),
        mistakes=(
            Mistake("taps reversed", _taps_reversed,
                    "the taps are applied in reverse: coef[0] belongs to the newest sample x[t] and "
                    "coef[7] to the oldest, x[t - 7]", hint=3),
            Mistake("shifted newest first", _shifted_newest_first,
                    "the samples were moved newest first (h1 = h0 before h2 = h1), so every older "
                    "place holds the previous sample: move them oldest first, h7 = h6 down to h1 = h0, "
                    "then h0 = the new sample", hint=2),
            Mistake("stored before the shift", _stored_before_the_shift,
                    "the new sample was stored before the shift, so it moved on at once: x[t] is "
                    "counted twice (with coef[0] and coef[1]) and x[t - 7] never. Shift first "
                    "(h7 = h6 ... h1 = h0), then h0 = x[t * channels + c]", hint=2),
        ),
        finding_hints=(
            FindingHint("uninitialized", "the history is read before it is set: start every place "
                        "of it at 0.0f before the loop over t (the samples before the first are 0)",
                        hint=1),
            FindingHint("out_of_bounds_read", "x was read past its end: sample t of signal c is "
                        "x[t * channels + c], for t < steps and c < channels (return early when "
                        "c >= channels)", "global", hint=1),
            FindingHint("out_of_bounds_write", "y was written past its end: write y[t * channels + c] "
                        "only for c < channels", "global", hint=1),
        ),
        shown="private accesses",
        place=(6, 0),
    ),
    compare=Compare(rtol=1e-5, atol=1e-5),
    extremes=Extremes(cases=_fir_extremes),
    technique=Technique(judge=in_registers),
))

# The slow kernel the exercise starts from is checked against the same contract.
study_record("spill_fix", "fir_ring", "registers.cl", _fir_cases())
