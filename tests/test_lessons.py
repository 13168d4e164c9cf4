"""The studies of helpers.studies.lessons (registers and unrolling, the work-group size, banks, costly
instructions, the rounding of a fused multiply-add, images, host and device at once): every
kernel checked against numpy on fresh random data at several sizes, on the course device."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import studies
from helpers.device import course_context
from helpers.studies import lessons

SIZES = {
    "registers": [dict(channels=300, steps=20), dict(channels=33, steps=5),
                  dict(channels=1000, steps=70)],
    "work_group_sizes": [dict(n=1000, sizes=[1, 32, 64]), dict(n=4097, sizes=[3, 96, 256])],
    "banks": [dict(items=512, reads=8), dict(items=300, reads=40, strides=(0, 5, 64))],
    "integer_division": [dict(n=1000, rounds=5), dict(n=77, rounds=33)],
}


@pytest.fixture(scope="module")
def cq():
    return course_context(quiet=True)


def test_the_small_sizes_of_the_device_check_are_among_the_tested():
    from helpers.studies.experiments import with_small_sizes
    small = {e.name: e.small for e in with_small_sizes() if e.prepare.__module__.startswith(
        "helpers.studies.lessons")}
    assert set(small) == set(SIZES)
    for name, params in small.items():
        assert params in SIZES[name]


@pytest.mark.parametrize("name, params", [pytest.param(n, p, id=f"{n}-{k}")
                                          for n, sizes in SIZES.items()
                                          for k, p in enumerate(sizes)])
def test_lesson_kernels_agree_with_numpy(cq, name, params):
    ctx, queue = cq
    prepared = getattr(lessons, name)(ctx, queue, **params)
    assert prepared
    for p in prepared:
        p.verify()   # raises StudyMismatch when numpy disagrees


def test_the_registers_study_has_the_solution_beside_the_given_kernels(cq):
    ctx, queue = cq
    labels = [p.label for p in lessons.registers(ctx, queue, channels=64, steps=9)]
    assert labels[0].startswith("ring") and "solution" in labels[-1] and len(labels) == 4


def test_the_work_group_sizes_run_from_1_to_the_devices_largest_and_the_driver_chooses_last(cq):
    ctx, queue = cq
    sizes = lessons.work_group_sizes_for(queue.device)
    assert sizes[0] == 1 and sizes[-1] == queue.device.max_work_group_size
    assert 32 in sizes and 256 in sizes
    rows = studies.measure(lessons.work_group_sizes(ctx, queue, n=5000, sizes=[8, 64]), queue,
                           warmup=1, repeats=2)
    assert [r["local"] for r in rows] == [8, 64, None] and all(r["correct"] for r in rows)


@pytest.mark.parametrize("stride, degree", [(0, 1), (1, 1), (2, 2), (3, 1), (4, 4), (8, 8),
                                            (16, 16), (32, 32), (33, 1), (48, 16), (64, 32)])
def test_the_degree_of_a_bank_conflict(stride, degree):
    assert lessons.conflict_degree(stride) == degree


def test_a_fused_multiply_add_keeps_what_the_product_lost(cq):
    ctx, queue = cq
    found = lessons.product_error(ctx, queue, n=5000, seed=1)
    assert found["exact_nonzero"] > 4000
    assert found["separate_nonzero"] == 0            # two roundings: a * b - p is always 0
    assert found["fused_exact"] == found["n"] and found["fused_largest_miss"] == 0.0


def test_linear_filtering_and_zeros_past_the_edge(cq):
    ctx, queue = cq
    found = lessons.images(ctx, queue, side=9, scale=3, rows=37, cols=13, seed=2)
    assert found["scaled"].shape == (27, 27)
    # hardware filtering may keep only 8 bits of the weights (1/256 of the pixels' range)
    assert found["upscale_largest_error"] < 1 / 256
    assert found["dot_largest_error"] < 1e-3


def test_bilinear_reference_keeps_a_constant_and_a_ramp():
    img = np.full((4, 4), 0.5, np.float32)
    assert np.allclose(lessons.bilinear_reference(img, 8, 8), 0.5)
    ramp = np.tile(np.arange(4, dtype=np.float32), (4, 1))
    up = lessons.bilinear_reference(ramp, 8, 4)
    assert np.allclose(up[0], [0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3])


def test_split_work_rows_and_the_balanced_share(cq):
    ctx, queue = cq
    found = lessons.split_work(ctx, queue, n=20000, shares=(0.5,), repeats=1, seed=3)
    labels = [r["label"] for r in found["rows"]]
    assert labels[:2] == ["device alone", "host alone (numpy)"] and labels[-1].startswith("balanced")
    assert 0.0 < found["rows"][-1]["device_share"] < 1.0


def test_the_group_order_record_shows_the_order_not_holding(cq):
    """Notebook 03's demo: the learner's device's runs, each a permutation of the group ids, and
    the H100's recorded runs (results/, tools/h100_group_order.sh), where nearly no group starts
    in id order: the lesson is shown holding nowhere it is not promised."""
    from helpers import bench, ndrange
    ctx, queue = cq
    mine = ndrange.group_order_runs(ctx, queue, runs=2, shown=100)
    assert mine["groups"] == 128 * queue.device.max_compute_units and len(mine["in_order"]) == 2
    assert len(mine["tickets"]) == min(100, mine["groups"])
    h100 = bench.load_result("nvidia-h100")["experiments"]["group_order"]
    assert h100["environment"]["device"]["device"].startswith("NVIDIA H100")
    assert len(h100["in_order"]) == 5 and max(h100["in_order"]) < 0.01
    assert sorted(h100["tickets"]) != h100["tickets"] and len(set(h100["tickets"])) == 2048
