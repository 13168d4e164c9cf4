"""bank_fix (notebook 09), a performance exercise on where data lives inside a compute unit: the
sums of records of 32 floats through a local tile, without the 32-way bank conflict of
record_sums_conflicted, where it starts. Correct from the start; the check times it."""

from __future__ import annotations

import numpy as np

from .common import copied_through_the_tile
from .model import (
    Buffer,
    Case,
    Compare,
    Exercise,
    Extremes,
    FindingHint,
    Inputs,
    Limits,
    LocalMem,
    Mistake,
    Outputs,
    Performance,
    Scalar,
    Teaching,
    Technique,
    Tile,
    random_floats,
    register,
    rounded_up,
    study_record,
)

FIELDS = 32


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
    # 2,000 records (64,000 floats) took 0.88 s of the Oclgrind pass's 1.96 s on a 2-core AMD EPYC
    # (tools/oclgrind_case_times.py): the device runs it, Oclgrind the other eight
    return tuple(records_case(n, loc, small=n != 2000) for n, loc in rows)


def _records_extremes(limits: Limits) -> tuple[Case, ...]:
    local = limits.widest_1d(4 * (FIELDS + 1))
    return (records_case(local + 3, local, small=False),
            records_case(local // 2 + 1, local, small=False))


_TILE = "the tile holds local size x 33 floats: record l of the work-group at [l * 33]"

register(Exercise(
    name="bank_fix",
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
    performance=Performance(records_case(1 << 18, 128, small=False),
                            records_case(1 << 14, 128, small=False),
                            given=("banks.cl", "record_sums_conflicted")),
    contract=("records holds n records of 32 floats (record r at `[r * 32]`); `sums[r]` = the sum "
              "of record r; one work-item per record, the global size may exceed n; `tile` holds "
              "local size x 33 floats and is used; reads of global memory coalesced; a warp's "
              "reads of the tile fall in 32 different banks; timed"),
    teaching=Teaching(
        title="Sums of 32-float records through a local tile without bank conflicts",
        notebook="09-bank-conflicts",
        hints=(
            "Keep the two steps (copy the records into the tile coalesced, then each work-item sums "
            "its record); change only where the floats lie in the tile, or the order a work-item "
            "reads them.",
            "Pad: rows of 33 floats, the 33rd unused, so record `l` starts in bank `l % 32`. Or keep "
            "rows of 32 and reorder: at step `f`, work-item `l` reads field `(f + l) % 32`.",
            "Keep what the start gets right: group `g`'s records start at `g * get_local_size(0)`; "
            "past `n`, copy zeros and store no sum; every work-item reaches the barrier.",
        ),
        mistakes=(
            Mistake("last field left out", _last_field_left_out,
                    "each sum leaves out the last of the record's 32 floats: sum f = 0 .. 31 "
                    "(the 33rd float of a padded row is padding, not data)", hint=2),
            Mistake("first work-group only", _first_group_only,
                    "every work-group summed the first work-group's records: work-group g starts at "
                    "record g * get_local_size(0), in the copy and in the sums", hint=3),
        ),
        finding_hints=(
            FindingHint("race", "a barrier is missing between filling the tile and reading it", "local",
                        hint=3),
            FindingHint("divergent_barrier", "some work-items skip the barrier (a return before it): "
                        "guard the copy and the store, and let every work-item reach the barrier",
                        hint=3),
            FindingHint("out_of_bounds_read", "records was read past its end: the work-group's last "
                        "record may be past n when n is not a multiple of the local size", "global",
                        hint=3),
            FindingHint("out_of_bounds_write", "sums was written past its end: store only for "
                        "records below n", "global", hint=3),
            FindingHint("out_of_bounds_read", f"the tile was read past its end: {_TILE}", "local",
                        hint=2),
            FindingHint("out_of_bounds_write", f"the tile was written past its end: {_TILE}",
                        "local", hint=2),
            FindingHint("uninitialized", "a sum read a float of the tile before anything was "
                        "written there: the barrier between filling the tile and reading it is "
                        "missing, or a float of a record's row is never copied", hint=3),
        ),
        shown="local passes",
        place=(9, 0),
    ),
    compare=Compare(rtol=1e-5, atol=1e-5),
    extremes=Extremes(cases=_records_extremes),
    technique=Technique(judge=copied_through_the_tile),
    tile=Tile(reads=0.75),
))

# The slow kernel the exercise starts from is checked against the same contract.
study_record("bank_fix", "record_sums_conflicted", "banks.cl", _records_cases())
