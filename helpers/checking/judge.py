"""The parent's side of a case: its judging, in a process that never ran learner code.

The worker (:mod:`.worker_side`) runs the learner's kernel and hands back the raw bytes of every buffer
it launched with, guard bands included, in a file of its own folder; the event that tells of the
file says only where its guard bands lie. Here the parent makes the case's inputs again from the
check's seed (:func:`case_rng`), computes the answer with the exercise's reference, checks that
the file is exactly as long as those buffers are, and turns the bytes into facts
(:func:`analyse`). Nothing the worker says about the values is taken on its word: a worker that
lied could only hand back bytes, and bytes pass only when they are the answer.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

import numpy as np

from ..exercises import Case, Exercise

# Bit patterns, by item size: quiet NaNs with payloads for floats; for integers, values far outside
# what the course's inputs and results reach.
SENTINELS = {
    2: {"input_guard": 0x7EAD, "output_guard": 0x7EEF, "poison": 0x7E0D},   # half floats
    4: {"input_guard": 0x7FC0DEAD, "output_guard": 0x7FC0BEEF, "poison": 0x7FC0F00D},
    8: {"input_guard": 0x7FF8DEADDEADDEAD, "output_guard": 0x7FF8BEEFBEEFBEEF,
        "poison": 0x7FF8F00DF00DF00D},
}
_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}
MAX_SAMPLES = 5


def sentinel(kind: str, dtype: np.dtype, length: int) -> np.ndarray:
    """``length`` copies of sentinel ``kind`` as values of ``dtype``."""
    size = np.dtype(dtype).itemsize
    return np.full(length, SENTINELS[size][kind], dtype=_UINT[size]).view(dtype)


def bits(a: np.ndarray) -> np.ndarray:
    return a.view(_UINT[a.dtype.itemsize])


def sentinel_bits(kind: str, dtype: np.dtype) -> int:
    """The bit pattern of sentinel ``kind`` for ``dtype``, to compare with :func:`bits`."""
    return SENTINELS[np.dtype(dtype).itemsize][kind]


def analyse(ex: Exercise, case: Case, inputs: dict, expected: dict, got: dict,
            head: dict, tail: dict) -> dict:
    """Facts about one case's outputs and guard bands (JSON-ready)."""
    facts: dict = {"buffers": {}, "ok": True}
    mismatched: dict[str, np.ndarray] = {}  # output name -> elements that differ from the answer
    for buf in ex.buffers():
        full = got[buf.name]
        h, t = head[buf.name], tail[buf.name]
        n = full.size - h - t
        body = full[h:h + n]
        f: dict = {"role": buf.role, "length": int(n)}
        guard_kind = "input_guard" if buf.role == "in" else "output_guard"
        if h or t:
            ref = sentinel_bits(guard_kind, buf.dtype)
            front = np.flatnonzero(bits(full[:h]) != ref)
            back = np.flatnonzero(bits(full[h + n:]) != ref)
            f["head_changed"] = int(front.size)
            f["tail_changed"] = int(back.size)
            if back.size:
                f["tail_first"] = int(back[0])
                f["tail_last"] = int(back[-1])
            if front.size:
                f["head_last"] = int(h - front[-1])  # 1 = the element just before the start
        if buf.role == "in":
            changed = np.flatnonzero(bits(body) != bits(inputs[buf.name]))
            f["input_changed"] = int(changed.size)
            if changed.size:
                f["input_changed_first"] = int(changed[0])
        else:
            want = expected[buf.name].astype(buf.dtype, copy=False).ravel()
            poison = bits(body) == sentinel_bits("poison", buf.dtype)
            leaked = np.zeros(n, dtype=bool)
            for other in ex.buffers():
                if other.role == "in" and np.dtype(other.dtype).itemsize == body.itemsize:
                    leaked |= bits(body) == sentinel_bits("input_guard", other.dtype)
            if ex.compare.view is not None:  # only a view is compared (e.g. the total of partials)
                close = _view_close(ex, case, body, want, poison)
                if not close.all() and not poison.any():
                    f["view"] = ex.compare.label
                    f["view_expected"] = ex.compare.view(case, want)[0].item()
                    f["view_got"] = ex.compare.view(case, body)[0].item()
            elif ex.compare.rtol == 0 and ex.compare.atol == 0:  # exact: compare bits (a copy must not round)
                close = bits(body) == bits(want)
            else:
                close = np.isclose(body, want, rtol=ex.compare.rtol, atol=ex.compare.atol, equal_nan=False)
            mismatched[buf.name] = ~close
            wrong = ~close & ~poison & ~leaked
            f["unwritten"] = int(poison.sum())
            f["wrong"] = int(wrong.sum())
            if buf.role == "inout":  # updated in place: wrong elements that were never updated
                f["unchanged"] = int((wrong & (bits(body) == bits(inputs[buf.name]))).sum())
            f["leaked"] = int(leaked.sum())
            if poison.any():
                idx = np.flatnonzero(poison)
                f["unwritten_first"] = int(idx[0])
                # A contiguous block of unwritten elements at the end: "from index k on".
                f["unwritten_is_tail"] = bool(idx[0] == n - idx.size)
            if wrong.any():
                idx = np.flatnonzero(wrong)
                shift = shifted_by(body, want, wrong, ex)
                if shift:
                    f["shift"] = shift
                f["wrong_samples"] = [
                    {"index": int(i), "expected": want[i].item(), "got": body[i].item()}
                    for i in idx[:MAX_SAMPLES]
                ]
            if f["unwritten"] or f["wrong"]:
                facts["ok"] = False
        if f.get("head_changed") or f.get("tail_changed") or f.get("input_changed"):
            facts["ok"] = False
        facts["buffers"][buf.name] = f
    # A mistake is only named when the values are wrong and its model tells it from the answer.
    values_wrong = any(f.get("unwritten") or f.get("wrong") for f in facts["buffers"].values())
    facts["mistakes"] = (matching_mistakes(ex, case, inputs, expected, got, head, tail, mismatched)
                         if values_wrong else [])
    return facts


def _view_close(ex: Exercise, case: Case, body: np.ndarray, want: np.ndarray,
                poison: np.ndarray) -> np.ndarray:
    """Per element of an output compared through ``ex.compare.view``: all true when the views agree
    (unwritten elements are reported on their own), all false otherwise."""
    if poison.any():
        return ~poison
    got_v, want_v = ex.compare.view(case, body), ex.compare.view(case, want)
    agree = bool(np.allclose(got_v, want_v, rtol=ex.compare.rtol, atol=ex.compare.atol))
    return np.full(body.size, agree)


SHIFT_SAMPLE = 4096


def shifted_by(body: np.ndarray, want: np.ndarray, wrong: np.ndarray, ex: Exercise) -> int:
    """k when the whole output is the answer moved k places: every element (the right ones too)
    holds the value expected k places away, wherever that place lies inside the buffer (the
    k elements at the edge read outside it). Else 0: a shift that explains a few wrong elements,
    or all the wrong ones but not the right ones between them (a transposed store, a race), is
    not the output's story."""
    n = body.size
    if np.count_nonzero(wrong) < 2:
        return 0
    # read off at most SHIFT_SAMPLE elements, spread evenly (millions of elements took a tenth of
    # a second per shift tried)
    every = np.arange(0, n, -(-n // SHIFT_SAMPLE))
    for k in (1, -1, 2, -2):
        idx = every[(every + k >= 0) & (every + k < n)]
        if np.count_nonzero(wrong[max(0, -k):n - max(0, k)]) < 2:
            continue   # wrong only at the edge: nothing inside that the shift explains
        # in float64: the difference of two halves (or of two large floats) may overflow
        got, near = body[idx].astype(np.float64), want[idx + k].astype(np.float64)
        if idx.size and np.isclose(got, near, rtol=ex.compare.rtol, atol=ex.compare.atol).all():
            return k
    return 0


def matching_mistakes(ex: Exercise, case: Case, inputs: dict, expected: dict, got: dict,
                      head: dict, tail: dict, mismatched: dict[str, np.ndarray]) -> list[str]:
    """Names of the record's mistakes that the outputs show: a model that matches every output
    element (leaving out models that coincide with the right answer in this case), or a pattern
    of the places ``mismatched`` marks (elements that differ from the answer, unwritten ones
    included)."""
    bodies = {}
    for buf in ex.outputs():
        h, t = head[buf.name], tail[buf.name]
        bodies[buf.name] = got[buf.name][h:got[buf.name].size - t]
    found = []
    for mistake in ex.teaching.mistakes:
        if mistake.wrong_at is not None:
            if mistake.wrong_at(case, np.flatnonzero(mismatched[ex.outputs()[0].name])):
                found.append(mistake.name)
            continue
        try:
            model = mistake.model(case, inputs)
        except Exception:  # a model that does not apply to this case
            continue
        match = True
        same_as_answer = True
        for buf in ex.outputs():
            body = bodies[buf.name]
            want = np.asarray(model[buf.name], dtype=np.float64).ravel()
            not_written = np.isnan(want)
            if not_written.all():  # says no more than "never written"
                match = False
                break
            poison = bits(body) == sentinel_bits("poison", buf.dtype)
            if not np.array_equal(poison, not_written):
                match = False
                break
            written = ~not_written
            right = np.asarray(expected[buf.name], dtype=np.float64).ravel()
            if not_written.any() or not np.array_equal(want, right):
                same_as_answer = False
            if ex.compare.view is not None:
                agrees = np.allclose(ex.compare.view(case, body), ex.compare.view(case, want),
                                     rtol=max(ex.compare.rtol, 1e-6), atol=max(ex.compare.atol, 1e-6))
                if not agrees or np.allclose(ex.compare.view(case, want), ex.compare.view(case, right)):
                    match = False
                    break
            elif not np.allclose(body[written].astype(np.float64), want[written],
                                 rtol=max(ex.compare.rtol, 1e-6), atol=max(ex.compare.atol, 1e-6)):
                match = False
                break
        if match and not same_as_answer:
            found.append(mistake.name)
    return found




def case_rng(seed: int, case: Case) -> np.random.Generator:
    """The generator of one case's inputs: from the check's seed and the case alone, so that the
    worker and the parent (and a later run with ``--seed``) make the same inputs, whatever order
    the cases run in."""
    key = zlib.crc32(json.dumps(case.to_json(), sort_keys=True).encode())
    return np.random.default_rng([seed & 0xFFFFFFFF, key])


def case_inputs(ex: Exercise, case: Case, seed: int) -> dict[str, np.ndarray]:
    return {k: np.ascontiguousarray(v) for k, v in ex.inputs(case, case_rng(seed, case)).items()}


def tail_length(length: int, max_local: int) -> int:
    """Guard elements after a buffer: longer than any overshoot a launch of its case can make."""
    return max(4096, max_local * 2, min(length, 1 << 16))


HEAD_BYTES_MOST = 1 << 20   # a head guard band is the device's alignment (4 KiB or more), no more
POISON_RUNS = 3             # a case run with local memory starting as patterns (see worker_side)


class RawUnreadable(Exception):
    """The worker's bytes for a case are not what its buffers make: never judged."""


def layout(ex: Exercise, case: Case, head: dict, tail: dict, guard: bool
           ) -> list[tuple[str, np.dtype, int]]:
    """The buffers of one run in the raw file, in the contract's order: (name, dtype, elements),
    once the guard bands the worker says it used are seen to be the ones it must use."""
    max_local = int(np.prod(case.local_size))
    out = []
    for buf in ex.buffers():
        dtype, length = np.dtype(buf.dtype), buf.length(case)
        h, t = head.get(buf.name), tail.get(buf.name)
        if not (isinstance(h, int) and isinstance(t, int)):
            raise RawUnreadable(f"no guard bands given for {buf.name}")
        if guard:
            fits = (t == tail_length(length, max_local) and h > 0
                    and (h * dtype.itemsize) % 4096 == 0 and h * dtype.itemsize <= HEAD_BYTES_MOST)
        else:
            fits = h == t == 0
        if not fits:
            raise RawUnreadable(f"guard bands {h}, {t} are not the check's for {buf.name}")
        out.append((buf.name, dtype, h + length + t))
    return out


def read_raw(path: Path, size: int) -> bytes:
    """Exactly ``size`` bytes of the regular file ``path`` (never through a link the worker put
    there: :func:`.learner.read_regular`), which is then removed."""
    from .learner import RefusedFile, read_regular
    try:
        data = read_regular(path, size)
    except RefusedFile as e:
        raise RawUnreadable(str(e)) from None
    if len(data) != size:
        raise RawUnreadable(f"a results file of {len(data)} bytes where {size} were due")
    try:
        os.unlink(path)
    except OSError:
        pass
    return data


def judge_case(ex: Exercise, case: Case, seed: int, folder: Path, ev: dict, guard: bool) -> dict:
    """The facts of one case from the worker's raw results (its event ``ev``: the file's name in
    ``folder``, the guard bands, the runs): the inputs and the answer made here."""
    name, runs = ev.get("raw"), ev.get("runs", 1)
    if not isinstance(name, str) or "/" in name or name.startswith(".") or runs not in (
            1, POISON_RUNS):
        raise RawUnreadable("the worker named no results file of its own")
    parts = layout(ex, case, ev.get("head") or {}, ev.get("tail") or {}, guard)
    per_run = sum(n * dtype.itemsize for _, dtype, n in parts)
    data = read_raw(folder / name, per_run * runs)
    got_runs = []
    for r in range(runs):
        at, got = r * per_run, {}
        for bname, dtype, n in parts:
            got[bname] = np.frombuffer(data, dtype=dtype, count=n, offset=at).copy()
            at += n * dtype.itemsize
        got_runs.append(got)
    inputs = case_inputs(ex, case, seed)
    expected = ex.reference(case, {k: v.copy() for k, v in inputs.items()})
    head = {b: ev["head"][b] for b, _, _ in parts}
    tail = {b: ev["tail"][b] for b, _, _ in parts}
    facts = analyse(ex, case, inputs, expected, got_runs[0], head, tail)
    if runs == POISON_RUNS:   # the same pattern twice, then the other (see worker_side, .poison)
        def outputs(got: dict) -> list[bytes]:
            return [got[b.name].tobytes() for b in ex.outputs()]
        first = outputs(got_runs[0])
        facts["runs_differ"] = outputs(got_runs[1]) != first
        facts["poison_changes"] = outputs(got_runs[2]) != first and not facts["runs_differ"]
    return facts
