"""Every kernel of the performance studies (notebooks 05-13 and 15) checked against numpy on fresh random
data at several sizes, on the course device. A kernel this device gets wrong must be one of the
lessons: the interleaved reductions PoCL miscompiles (3.x here, 5.0 on the reference host), which
Oclgrind must then find correct, or the warp-synchronous kernels, whose data race Oclgrind must
then report."""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pytest

from helpers import studies
from helpers.checking import run_check
from helpers.device import course_context
from helpers.studies import StudyMismatch

SIZES = {
    "ilp": [dict(items=[64, 200], rounds=40), dict(items=[96], rounds=7, chains=(2, 4))],
    "mlp": [dict(floats_total=10000, items=[64, 320]), dict(floats_total=4099, items=[128])],
    "strides": [dict(n=4096), dict(n=1 << 15, steps=(1, 3, 16))],
    "layouts": [dict(n=1000), dict(n=4097)],
    "transpose": [dict(width=100, height=70), dict(width=64, height=64), dict(width=33, height=1)],
    "divergence": [dict(n=37), dict(n=64), dict(n=130)],
    "constant_memory": [dict(n=1000), dict(n=17)],
    "fast_math": [dict(n=1000, rounds=5), dict(n=333, rounds=12)],
    "reductions": [dict(n=10001), dict(n=4096, local=64), dict(n=77, local=32)],
    "matvec": [dict(width=300, height=77), dict(width=1100, height=50, local=64),
               dict(width=37, height=300, local=128, slices=(16, 128)),
               dict(width=20, height=97, local=16, slices=(16,), stream_rows=(4, 8, 16),
                    stream_per_unit=(1,))],
    "hotspot": [dict(width=100, height=70, steps=4, per_launch=(1, 2)),
                dict(width=64, height=64, steps=8, per_launch=(1, 2, 4)),
                dict(width=37, height=1, steps=6, per_launch=(3,)),
                dict(width=53, height=41, steps=6, blocks=(8, 32), per_launch=(1, 2, 3))],
    "contention": [dict(counters=(1, 32), rounds=4), dict(counters=(7, 1024), rounds=3, local=64)],
    "histograms": [dict(n=5000, nbins=37), dict(n=100003, nbins=256, local=64),
                   dict(n=999, nbins=1, spreads=("one value",), local=32)],
}

# kernels whose result is wrong on a device only by a driver bug (Oclgrind must agree they are
# right), and kernels that race by design (Oclgrind must report it): studies.KNOWN_WRONG
MISCOMPILED_BY_POCL = {k for k, (where, _) in studies.KNOWN_WRONG.items() if where == "PoCL"}
RACY = {"sum_warp_unrolled": "parallel_sum:sum_warp_unrolled",
        "mv_group_warp": "mat_vec_mul:mv_group_warp"}


def test_the_known_wrong_kernels_are_these():
    assert MISCOMPILED_BY_POCL == {"sum_local", "sum_local_two"}
    assert {k for k, (where, _) in studies.KNOWN_WRONG.items() if where is None} == set(RACY)


def test_the_small_sizes_of_the_device_check_are_among_the_tested():
    from helpers.studies.experiments import with_small_sizes
    small = {e.name: e.small for e in with_small_sizes() if e.prepare.__module__.startswith(
        "helpers.studies") and e.prepare.__module__ != "helpers.studies.lessons"}  # (test_lessons)
    assert set(small) == set(SIZES)
    for name, params in small.items():
        assert params in SIZES[name]


@pytest.fixture(scope="module")
def cq():
    return course_context(quiet=True)


def _cases():
    for name, sizes in SIZES.items():
        for k, params in enumerate(sizes):
            yield pytest.param(name, params, id=f"{name}-{k}")


def test_every_study_is_tested():
    assert set(SIZES) == {"ilp", "mlp", "strides", "layouts", "transpose", "divergence",
                          "constant_memory", "fast_math", "reductions", "matvec", "hotspot",
                          "contention", "histograms"}


@pytest.mark.parametrize("name, params", list(_cases()))
def test_study_kernels_agree_with_numpy(cq, name, params):
    ctx, queue = cq
    prepared = getattr(studies, name)(ctx, queue, **params)
    assert prepared
    wrong = {}
    for p in prepared:
        try:
            p.verify()
        except StudyMismatch as e:
            wrong[p.kernel] = str(e)
    for kernel, why in wrong.items():
        if kernel in RACY:
            continue  # see test_racy_kernels_are_reported_by_oclgrind
        # anything else wrong must be a driver bug the course names for this device
        assert studies.known_wrong(kernel, queue.device), \
            f"{kernel} is wrong on {queue.device.name.strip()} ({queue.device.platform.version}): {why}"


@pytest.mark.parametrize("kernel", sorted(MISCOMPILED_BY_POCL))
def test_kernels_a_driver_gets_wrong_are_correct_on_oclgrind(kernel, oclgrind_present):
    report = run_check(f"parallel_sum:{kernel}")
    assert report.passed, report.message
    assert report.oclgrind_pass is not None and report.oclgrind_pass.all_ok()


@pytest.mark.parametrize("record", sorted(RACY.values()))
def test_racy_kernels_are_reported_by_oclgrind(record, oclgrind_present):
    report = run_check(record)
    assert not report.passed
    assert "data race" in report.message and "kernels/studies/" in report.message


@pytest.mark.parametrize("record", ["parallel_sum:sum_modern", "parallel_sum:sum_chunks",
                                    "parallel_sum:sum_sequential", "parallel_sum:sum_four",
                                    "mat_vec_mul:mv_slices", "mat_vec_mul:mv_group_sequential",
                                    "mat_vec_mul:mv_group_interleaved",
                                    "mat_vec_mul:mv_group_serial", "mat_vec_mul:mv_item_rows",
                                    "mat_vec_mul:mv_item_per_row", "sgemm_tiled:sgemm_plain",
                                    "strided_fix:saxpy_chunks", "divergence_fix:branches_woven"])
def test_ladder_kernels_pass_the_exercise_checker(record, oclgrind_present):
    report = run_check(record)
    assert report.passed and not report.miscompiled, report.message


def test_measure_rows_carry_times_and_correctness(cq):
    ctx, queue = cq
    rows = studies.measure(studies.reductions(ctx, queue, n=5000), queue, warmup=1, repeats=2)
    assert [r["kernel"] for r in rows][:2] == ["sum_global", "sum_local"]
    for r in rows:
        assert r["seconds"] > 0 and r["gb_per_s"] > 0 and r["bytes"] == 4 * 5000
        assert r["correct"] or r["note"].startswith(r["label"])
    assert next(r for r in rows if r["kernel"] == "sum_modern")["correct"]


def test_sum_end_to_end_is_right_for_every_contender(cq):
    ctx, queue = cq
    result = studies.sum_end_to_end(ctx, queue, n=100003, repeats=2)
    labels = [r["label"] for r in result["rows"]]
    assert any("sum_modern" in x for x in labels) and "pyopencl.array.sum" in labels
    assert any(x.startswith("numpy.sum") for x in labels)
    assert all(r["correct"] for r in result["rows"]), result["rows"]
    assert result["environment"]["device"]


def test_the_wall_clock_queue_shares_the_context_but_not_the_profiling(cq):
    ctx, queue = cq
    profiling = cl.command_queue_properties.PROFILING_ENABLE
    assert queue.properties & profiling
    plain = studies.wall_queue(queue)
    assert plain is not queue and not plain.properties & profiling
    assert plain.context == ctx and plain.device == queue.device
    assert studies.wall_queue(plain) is plain


def test_matvec_launches_as_the_whitepaper_and_filled(cq):
    ctx, queue = cq
    prepared = studies.matvec(ctx, queue, width=64, height=300, slices=(32,))
    paper = [p for p in prepared if p.params["launch"] == "whitepaper"]
    assert {p.params["groups"] for p in paper if p.params["listing"] > 2} == {60}
    assert next(p for p in paper if p.params["listing"] == 2).params["groups"] == 2  # 300 / 256
    assert any(p.params["launch"] == "filled" and p.params["groups"] == 300 for p in prepared)


def test_hotspot_has_a_row_per_launch_shape(cq):
    """One launch per step, then one tiled row for each number of steps per launch that fits."""
    ctx, queue = cq
    rows = studies.hotspot(ctx, queue, width=64, height=48, steps=8, blocks=(16,),
                           per_launch=(1, 2, 4, 8))
    shapes = [(p.kernel, p.params["steps_per_launch"], p.params["launches"]) for p in rows]
    # 16 x 16 blocks: 8 steps per launch would leave no inner cells, so that row is left out
    assert shapes == [("hotspot_step", 0, 8), ("hotspot_tiled", 1, 8), ("hotspot_tiled", 2, 4),
                      ("hotspot_tiled", 4, 2)]
    # the tiles overlap: more cells are computed than the grid has, the more steps per launch
    computed = [p.params["cells_computed"] for p in rows[1:]]
    assert computed == sorted(computed) and computed[0] > 64 * 48 * 8


@pytest.mark.parametrize("loads, n", [(1, 100003), (4, 100003), (3, 4099)])
def test_the_single_pass_sum_is_right_end_to_end_beside_the_others(cq, loads, n):
    ctx, queue = cq
    result = studies.sum_single_pass(ctx, queue, n=n, repeats=3, loads=loads)
    first = result["rows"][0]
    assert first["kernel"] == "sum_single_pass" and first["kernel_seconds"] > 0
    assert first["loads"] == loads
    assert any("sum_modern" in r["label"] for r in result["rows"])
    # three calls in a row alternate the slots: each total is right, the cleared slot included
    assert all(r["correct"] for r in result["rows"]), result["rows"]


class _Clock:
    """A clock that only the contenders move: each call of a contender costs its base times the
    number of that contender's calls so far, so every sample says which call it timed."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now

    def contenders(self, bases: dict[str, float], log: list, grow: bool = True) -> dict:
        counts = dict.fromkeys(bases, 0)

        def call(name: str) -> None:
            counts[name] += 1
            log.append(name)
            self.now += bases[name] * (counts[name] if grow else 1)
        return {name: (lambda name=name: call(name)) for name in bases}


def test_contenders_take_turns_in_alternating_order_after_warming_up(monkeypatch):
    clock, log = _Clock(), []
    monkeypatch.setattr(studies.harness, "time", clock)
    samples = studies.in_turns(clock.contenders({"a": 1, "b": 10, "c": 100}, log),
                               rounds=3, repeats=4, warmup=2, warm_s=0)
    assert log[:3] == ["a", "b", "c"]  # one pass each to warm up, then the rounds
    turns = log[3:]
    assert len(turns) == 3 * 3 * (2 + 4)
    assert [turns[i] for i in range(0, len(turns), 6)] == list("abc" "cba" "abc")
    assert all(turns[i:i + 6] == [turns[i]] * 6 for i in range(0, len(turns), 6))
    # each turn: calls 2 and 3 untimed, 4-7 timed; the next turn 8-9, then 10-13; then 14-19
    calls = [[4, 5, 6, 7], [10, 11, 12, 13], [16, 17, 18, 19]]
    assert samples == {name: [[base * k for k in one] for one in calls]
                       for name, base in (("a", 1), ("b", 10), ("c", 100))}


def test_the_warm_up_takes_turns_until_its_time_is_up(monkeypatch):
    clock, log = _Clock(), []
    monkeypatch.setattr(studies.harness, "time", clock)
    # a pass of the three costs 6 s: 10 s of warming takes two passes
    studies.in_turns(clock.contenders({"a": 1, "b": 2, "c": 3}, log, grow=False), rounds=1,
                     repeats=1, warmup=0, warm_s=10)
    assert log == list("abc" "abc" "abc")


def _fake_cupy(off_by: int = 0):
    """A stand-in for cupy: numpy arrays have the same sum (``off_by`` added to it)."""
    import types

    class Array(np.ndarray):
        def sum(self, *args, **kwargs):
            return super().sum(*args, **kwargs) + off_by
    return types.SimpleNamespace(__version__="0-test", int64=np.int64,
                                 asarray=lambda a: np.asarray(a).view(Array))


def test_the_single_pass_sum_and_cupy_take_their_figures_from_the_same_turns(cq, monkeypatch):
    """Where cupy is there, its row and the one pass's come from the turns: fixed samples here."""
    fake = _fake_cupy()
    monkeypatch.setattr(studies.reduction, "cupy_on", lambda device: fake)
    monkeypatch.setattr(studies.advanced, "cupy_on", lambda device: fake)
    turns = {"ours": [[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]], "cupy": [[3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]}
    taken = {}

    def fake_turns(calls, rounds, repeats):
        taken.update(labels=list(calls), results=[fn() for fn in calls.values()])
        return turns
    monkeypatch.setattr(studies.advanced, "in_turns", fake_turns)
    ctx, queue = cq
    n = 100003
    result = studies.sum_single_pass(ctx, queue, n=n, repeats=3)
    total = int(studies.sum_ints_data(studies.seeded_rng(0), n).sum(dtype=np.int64))
    assert taken == {"labels": ["ours", "cupy"], "results": [total, total]}
    ours = result["rows"][0]
    theirs = next(r for r in result["rows"] if r["label"] == "cupy.sum (cupy 0-test)")
    assert ours["correct"] and theirs["correct"]
    for row, seconds, low, high in ((ours, 2.5, 1.0, 4.0), (theirs, 5.5, 3.0, 8.0)):
        assert (row["seconds"], row["min_seconds"], row["max_seconds"]) == (seconds, low, high)
        assert row["repeats"] == 6 and row["gb_per_s"] == 4 * n / seconds / 1e9
        assert "in turns" in row["timed"]
    assert result["in_turns"]["ours_per_round"] == [2.0, 3.0]
    assert result["in_turns"]["cupy_per_round"] == [4.0, 7.0]
    assert result["in_turns"]["ratio_per_round"] == [2.0, 7.0 / 3.0]
    assert result["in_turns"]["ratio"] == 5.5 / 2.5


def test_a_wrong_cupy_sum_is_not_counted_right(cq, monkeypatch):
    fake = _fake_cupy(off_by=1)
    monkeypatch.setattr(studies.reduction, "cupy_on", lambda device: fake)
    monkeypatch.setattr(studies.advanced, "cupy_on", lambda device: fake)
    ctx, queue = cq
    result = studies.sum_single_pass(ctx, queue, n=4099, repeats=2)
    assert not next(r for r in result["rows"] if r["label"].startswith("cupy.sum"))["correct"]
    assert result["rows"][0]["correct"] and len(result["in_turns"]["ratio_per_round"]) == 8


def test_the_histogram_experiment_counts_rightly_every_way(cq):
    ctx, queue = cq
    result = studies.advanced.histogram_experiment(ctx, queue, n=20001, repeats=2)
    kernels = {r["kernel"] for r in result["rows"]}
    assert {"histogram_global", "histogram_copies"} <= kernels
    assert all(r["correct"] for r in result["rows"]), result["rows"]


def test_a_job_split_across_devices_is_checked_and_timed():
    from helpers.device import choose_device
    devices = studies.two_devices(choose_device())
    result = studies.split_job(devices, n=10007, rounds=16, repeats=1)
    split = result["rows"][-1]
    assert len(result["rows"]) == len(devices) + 1 and all(r["correct"] for r in result["rows"])
    assert abs(sum(split["shares"]) - 1) < 1e-9 and split["seconds"] > 0
    kinds = {(c["device"], c["what"]) for c in result["commands"]}
    assert kinds == {(d, w) for d in range(len(devices)) for w in ("copy in", "kernel", "copy out")}
    assert all(c["end"] >= c["start"] for c in result["commands"])


def test_the_shared_job_reference_is_the_loop_it_stands_for():
    import numpy as np
    x = np.linspace(-1, 1, 9, dtype=np.float32)
    loop = sum(_chain(x.astype(np.float64) + 0.125 * k, 50) for k in range(8))
    assert np.allclose(studies.advanced.shared_job_reference(x, 50), loop, rtol=1e-12)


def _chain(c, rounds):
    for _ in range(rounds):
        c = c * 0.999 + 0.001
    return c
