"""Level 3, two performance exercises on where data lives inside a compute unit: spill_fix
(notebook 05, a private array that leaves the registers) and bank_fix (notebook 06, a local tile
read with a 32-way bank conflict). Both are correct from the start; the check times them."""

from __future__ import annotations

import numpy as np

from .model import (
    Buffer,
    Case,
    Exercise,
    FindingHint,
    Inputs,
    Limits,
    LocalMem,
    Mistake,
    Outputs,
    Performance,
    Scalar,
    random_floats,
    register,
    rounded_up,
    study_record,
)

TAPS = 8
FIELDS = 32

# --------------------------------------------------------------------------------------------------
# spill_fix: an 8-tap filter along each of `channels` signals, one work-item per signal.


def _fir_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"x": random_floats(rng, case["channels"] * case["steps"], -1.0, 1.0),
            "coef": rng.uniform(0.1, 1.0, TAPS).astype(np.float32)}


def fir(taps: np.ndarray, steps: int, channels: int, x: np.ndarray) -> np.ndarray:
    """y[t][c] = sum_k taps[k] x[t - k][c] (x before 0 is 0), summed in double precision (one
    float64 array: the timing child has a bounded memory beside the driver's). Also the
    reference of the registers study (helpers.lessons)."""
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
    title="An 8-tap filter whose history stays in registers",
    notebook="05-performance-model",
    args=(
        Buffer("x", np.float32, "in", lambda c: c["channels"] * c["steps"],
               shape=lambda c: (c["steps"], c["channels"])),
        Buffer("y", np.float32, "out", lambda c: c["channels"] * c["steps"],
               shape=lambda c: (c["steps"], c["channels"])),
        Buffer("coef", np.float32, "in", lambda c: TAPS),
        Scalar("channels", np.uint32, lambda c: c["channels"]),
        Scalar("steps", np.uint32, lambda c: c["steps"]),
    ),
    cases=_fir_cases(),
    make_inputs=_fir_inputs,
    reference=_filtered,
    rtol=1e-5,
    atol=1e-5,
    hints=(
        "Keep one work-item per signal (work-items with `c >= channels` have none) and the loop "
        "over `t`. The index `t % 8` is known only while the kernel runs, which keeps `ring` in "
        "memory: replace the array by eight variables, `h0` (the newest sample) to `h7` (the "
        "oldest), all `0.0f` at the start.",
        "At every step each sample moves one place older, and then the new sample "
        "`x[t * channels + c]` takes `h0`'s place. Move them oldest first, from `h7` down to "
        "`h1`: moving newest first would copy `h0` into all of them.",
        "`y[t * channels + c]` is the sum of the eight products of a coefficient and a sample: "
        "`coef[0]` with the newest, `h0`, up to `coef[7]` with the oldest, `h7`.",
        "Reading the eight coefficients into private variables once, before the loop over `t`, "
        "saves reading `coef` at every step.",
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
    performance=Performance(fir_case(1 << 15, 128, 128, small=False),
                            fir_case(1 << 13, 64, 128, small=False),
                            given=("registers.cl", "fir_ring")),
    widest=_fir_extremes,
))


# --------------------------------------------------------------------------------------------------
# bank_fix: the sums of records of 32 floats, staged through a local tile.


def _records_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"records": random_floats(rng, case["n"] * FIELDS, -1.0, 1.0)}


def _records(case: Case, inputs: Inputs) -> np.ndarray:
    return inputs["records"].reshape(case["n"], FIELDS).astype(np.float64)


def _record_sums(case: Case, inputs: Inputs) -> Outputs:
    return {"sums": _records(case, inputs).sum(axis=1)}


def _last_field_left_out(case: Case, inputs: Inputs) -> Outputs:
    return {"sums": _records(case, inputs)[:, :FIELDS - 1].sum(axis=1)}


def _first_group_only(case: Case, inputs: Inputs) -> Outputs:
    """Every work-group summed the first work-group's records (its offset forgotten)."""
    local = case.local_size[0]
    sums = _records(case, inputs).sum(axis=1)
    first = np.zeros(local)
    first[:min(local, case["n"])] = sums[:local]
    return {"sums": first[np.arange(case["n"]) % local]}


def records_case(n: int, local: int, small: bool = True) -> Case:
    return Case((rounded_up(n, local),), (local,), {"n": n}, small=small)


def _records_cases() -> tuple[Case, ...]:
    rows = [(1000, 64), (64, 64), (77, 32), (5, 8), (300, 16), (1, 1), (2000, 128), (513, 128),
            (129, 4)]
    return tuple(records_case(n, loc) for n, loc in rows)


def _records_extremes(limits: Limits) -> tuple[Case, ...]:
    local = limits.widest_1d(4 * (FIELDS + 1))
    return (records_case(local + 3, local, small=False),
            records_case(local // 2 + 1, local, small=False))


_TILE = "the tile holds local size x 33 floats: record l of the work-group at [l * 33]"

register(Exercise(
    name="bank_fix",
    title="Sums of 32-float records through a local tile without bank conflicts",
    notebook="06-memory-access",
    args=(
        Buffer("records", np.float32, "in", lambda c: c["n"] * FIELDS,
               shape=lambda c: (c["n"], FIELDS)),
        Buffer("sums", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        LocalMem("tile", np.float32, lambda c: c.local_size[0] * (FIELDS + 1)),
    ),
    cases=_records_cases(),
    make_inputs=_records_inputs,
    reference=_record_sums,
    rtol=1e-5,
    atol=1e-5,
    hints=(
        "Keep the two steps of the kernel you start from (copy the work-group's records into the "
        "tile with neighbouring work-items on neighbouring floats; then each work-item sums its "
        "own record from the tile) and change only where the floats lie in the tile, or the "
        "order in which a work-item reads its record.",
        "Pad: give each record a row of 33 floats, so that record `l` starts in bank `l % 32`. "
        "Float `i` of the group's records (record `i / 32`, field `i % 32`) goes to row "
        "`i / 32`, column `i % 32` of the padded tile, and work-item `l` sums the first 32 floats "
        "of row `l` (the 33rd is padding). At every field the warp's 32 reads then fall in 32 "
        "different banks.",
        "Or reorder, with rows of 32: at step `f` work-item `l` reads field `(f + l) % 32` of its "
        "record. The sum is the same, and every work-item of a warp reads a bank of its own.",
        "Keep what the start already gets right: work-group `g`'s records start at record "
        "`g * get_local_size(0)`, and in the last work-group some may lie past `n` (copy zeros "
        "for them, store sums only for records below `n`); every work-item reaches the barrier "
        "between filling the tile and reading it.",
    ),
    mistakes=(
        Mistake("last field left out", _last_field_left_out,
                "each sum leaves out the last of the record's 32 floats: sum f = 0 .. 31 "
                "(the 33rd float of a padded row is padding, not data)", hint=2),
        Mistake("first work-group only", _first_group_only,
                "every work-group summed the first work-group's records: work-group g starts at "
                "record g * get_local_size(0), in the copy and in the sums", hint=4),
    ),
    finding_hints=(
        FindingHint("race", "a barrier is missing between filling the tile and reading it", "local",
                    hint=4),
        FindingHint("divergent_barrier", "some work-items skip the barrier (a return before it): "
                    "guard the copy and the store, and let every work-item reach the barrier",
                    hint=4),
        FindingHint("out_of_bounds_read", "records was read past its end: the work-group's last "
                    "record may be past n when n is not a multiple of the local size", "global",
                    hint=4),
        FindingHint("out_of_bounds_write", "sums was written past its end: store only for "
                    "records below n", "global", hint=4),
        FindingHint("out_of_bounds_read", f"the tile was read past its end: {_TILE}", "local",
                    hint=2),
        FindingHint("out_of_bounds_write", f"the tile was written past its end: {_TILE}",
                    "local", hint=2),
        FindingHint("uninitialized", "a sum read a float of the tile before anything was "
                    "written there: the barrier between filling the tile and reading it is "
                    "missing, or a float of a record's row is never copied", hint=4),
    ),
    performance=Performance(records_case(1 << 18, 128, small=False),
                            records_case(1 << 14, 128, small=False),
                            given=("banks.cl", "record_sums_conflicted")),
    widest=_records_extremes,
    tiled=True,
))

# The slow kernels the exercises start from are checked against the same contracts.
study_record("spill_fix", "fir_ring", "registers.cl", _fir_cases())
study_record("bank_fix", "record_sums_conflicted", "banks.cl", _records_cases())
