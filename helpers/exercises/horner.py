"""horner (notebook 11): evaluate a polynomial at every x by Horner's rule, its coefficients in
``__constant`` memory (every work-item reads the same coefficient at the same step: the constant
cache's broadcast)."""

from __future__ import annotations

import numpy as np

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
    Scalar,
    Teaching,
    random_floats,
    register,
    rounded_up,
)

MAX_DEGREE = 16


def _horner(coef: np.ndarray, x: np.ndarray) -> np.ndarray:
    """coef[0] + coef[1] x + ... + coef[-1] x^(len - 1), in float64."""
    x = x.astype(np.float64)
    acc = np.zeros_like(x)
    for c in coef.astype(np.float64)[::-1]:
        acc = acc * x + c
    return acc


def _polynomial(case: Case, inputs: Inputs) -> Outputs:
    return {"y": _horner(inputs["coef"], inputs["x"])}


def _reversed(case: Case, inputs: Inputs) -> Outputs:
    if case["degree"] == 0:
        raise ValueError("one coefficient: the same either way")
    return {"y": _horner(inputs["coef"][::-1], inputs["x"])}


def _leading_left_out(case: Case, inputs: Inputs) -> Outputs:
    """The sum stops at coef[degree - 1] x^(degree - 1)."""
    if case["degree"] == 0:
        raise ValueError("no term to leave out")
    return {"y": _horner(inputs["coef"][:-1], inputs["x"])}


def _constant_left_out(case: Case, inputs: Inputs) -> Outputs:
    """The loop stops before k = 0: Horner's last step, times x plus coef[0], is missing."""
    if case["degree"] == 0:
        raise ValueError("no term to leave out")
    return {"y": _horner(inputs["coef"][1:], inputs["x"])}


def _inputs(case: Case, rng: np.random.Generator) -> Inputs:
    """|x| <= 1 and coefficients in [-1, 1] (never zero): every term matters, nothing overflows."""
    return {"x": random_floats(rng, case["n"], -1.0, 1.0),
            "coef": random_floats(rng, case["degree"] + 1, -1.0, 1.0)}


def _case(n: int, local: int, degree: int, small: bool | None = None) -> Case:
    return Case((rounded_up(n, local),), (local,), {"n": n, "degree": degree},
                small=n <= 4096 if small is None else small)


def _cases() -> tuple[Case, ...]:
    rows = [(1, 64, 3), (100, 32, 5), (1000, 256, MAX_DEGREE), (4096, 64, 1), (777, 128, 0),
            (5, 1, 7), (9, 2, 2), (333, 7, 11), (1 << 20, 256, MAX_DEGREE),
            ((1 << 20) + 3, 128, 9)]
    return tuple(_case(n, loc, d) for n, loc, d in rows)


def _extremes(limits: Limits) -> tuple[Case, ...]:
    local = limits.widest_1d()
    return (_case(local // 2 + 3, local, MAX_DEGREE, small=False),
            _case(2 * local + 5, local, 4, small=False))


register(Exercise(
    name="horner",
    args=(
        Buffer("x", np.float32, "in", lambda c: c["n"]),
        Buffer("y", np.float32, "out", lambda c: c["n"]),
        Buffer("coef", np.float32, "in", lambda c: c["degree"] + 1, memory="constant"),
        Scalar("degree", np.uint32, lambda c: c["degree"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
    ),
    cases=_cases(),
    make_inputs=_inputs,
    reference=_polynomial,
    contract=("`y[i]` = `coef[0] + coef[1] x[i] + ... + coef[degree] x[i]^degree` for `i < n` "
              "(|x| <= 1, degree <= 16, |coef| <= 1; compared within float32 rounding); global "
              "size may exceed n"),
    teaching=Teaching(
        title="Evaluate a polynomial by Horner's rule, its coefficients in constant memory",
        notebook="11-constant-memory-and-fast-math",
        hints=(
            "Horner's rule nests the polynomial: start from `coef[degree]`, and at every step multiply "
            'by `x` and add the next coefficient down, until `coef[0]`.',
            'A `uint` loop counting down to 0 never ends: count the steps up and index from the top, or'
            ' use a signed `int`. There are `degree + 1` coefficients.',
            'Every work-item reads the same `coef[k]` at once: constant memory serves the whole warp. '
            'One `fma` per step is fine.',
        ),
        mistakes=(
            Mistake("reversed", _reversed,
                    "the coefficients were taken in reverse: coef[0] is the constant term and "
                    "coef[degree] belongs to x^degree, so Horner's rule starts from coef[degree]",
                    hint=1),
            Mistake("leading left out", _leading_left_out,
                    "the highest term, coef[degree] x^degree, is missing: there are degree + 1 = "
                    "{coefs} coefficients", details=lambda c: {"coefs": c["degree"] + 1}, hint=2),
            Mistake("constant left out", _constant_left_out,
                    "the last step of Horner's rule is missing: the loop stopped before coef[0] "
                    "(multiply by x and add coef[0] once more)", hint=2),
        ),
        finding_hints=(
            # the buffer read past its end is the one on the reported line (x read before the guard
            # is not coef's overrun)
            FindingHint("out_of_bounds_read", "coef was read past its end: it holds degree + 1 "
                        "coefficients, coef[0] to coef[degree]", code=r"\bcoef\s*\[", hint=2),
            FindingHint("out_of_bounds_read", "x was read past its end: the work-items past n have "
                        "no element, so guard the load of x[i] with i < n, not only the store",
                        code=r"\bx\s*\[", hint=0),
            FindingHint("out_of_bounds_write", "y was written past its end: guard with i < n",
                        "global", hint=0),
        ),
        place=(11, 0),
    ),
    compare=Compare(
        # float32 Horner with or without fused multiply-adds, |x| <= 1, up to 17 coefficients below 1:
        # the rounding errors stay below about 17 * 2 * 6e-8 * 17 (a wrong term is far larger)
        rtol=1e-5,
        atol=1e-4,
    ),
    extremes=Extremes(cases=_extremes),
))
