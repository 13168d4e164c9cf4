"""Notebook 16's studies (helpers/studies/then_and_now.py) on the course device: each checks its
kernels against numpy before it times them, so a run that returns is a run whose kernels were right;
these tests check what each returns, and that a wrong result is refused."""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pytest

from helpers.device import course_context
from helpers.studies import StudyMismatch, then_and_now


@pytest.fixture(scope="module")
def cq():
    return course_context()


def test_float_and_float4_do_the_same_multiply_adds(cq):
    rows = then_and_now.scalar_and_vector(*cq, items=1024, rounds=8)
    scalar, vector = rows
    assert (scalar["kernel"], vector["kernel"]) == ("fma_scalar", "fma_vector")
    assert scalar["work_items"] == 4 * vector["work_items"]
    # the same operations: their GFLOP/s and times agree as flops / seconds
    flops = [r["gflop_per_s"] * r["ms"] for r in rows]
    assert flops[0] == pytest.approx(flops[1], rel=0.02)


def test_kernels_on_one_queue_and_on_many_run_and_agree(cq):
    r = then_and_now.concurrent_kernels(*cq, kernels=3, target_seconds=0.001, repeats=2)
    assert r["kernels"] == 3 and r["rounds"] >= 1 << 10
    assert r["one_queue_ms"] > 0 and r["a_queue_each_ms"] > 0
    assert r["speedup"] == pytest.approx(r["one_queue_ms"] / r["a_queue_each_ms"], rel=0.01)


def test_gemm_reads_through_buffers_and_images(cq):
    ctx, queue = cq
    r = then_and_now.texture_path(ctx, queue, n=48)
    names = [row["kernel"] for row in r["rows"]]
    assert names[:2] == ["gemm_buffers", "gemm_buffers_tiled"]
    if queue.device.image_support:
        assert names[2:] == ["gemm_images", "gemm_images_tiled"] and r["copy_into_images_ms"] > 0
    else:
        assert names[2:] == [] and not r["images"]


def test_barrier_rounds_at_each_work_group_size(cq):
    ctx, queue = cq
    rows = then_and_now.barrier_cost(ctx, queue, sizes=(32, 64, 48), items=1536, rounds=5)
    # 48 is no power of two but divides 1536: it runs too; (lid + 1) % size wraps at any size
    assert [r["local_size"] for r in rows] == [s for s in (32, 64, 48)
                                               if s <= queue.device.max_work_group_size]


def test_sub_groups_where_the_device_has_them(cq):
    ctx, queue = cq
    r = then_and_now.subgroups(ctx, queue, items=4096, local=64)
    names = [row["kernel"] for row in r["rows"]]
    assert names[0] == "sum_tree"
    if (r["max_num_sub_groups"] or 0) > 0 or r["extension"]:
        assert names == ["sum_tree", "sum_subgroups"], r.get("build_error")
        assert r["sub_group_size"] and 64 % r["sub_group_size"] == 0
    else:
        assert names == ["sum_tree"] and r["sub_group_size"] is None


def test_a_wrong_result_is_refused(cq, monkeypatch):
    """The studies compare before they time: a reference that disagrees stops the run."""
    monkeypatch.setattr(then_and_now, "_spin_reference",
                        lambda local, rounds: np.full(local, -1.0, np.float32))
    with pytest.raises(StudyMismatch):
        then_and_now.concurrent_kernels(*cq, kernels=2, target_seconds=0.0005, repeats=1)


def test_the_reference_gpu_has_no_sub_groups_and_ran_kernels_side_by_side():
    """What notebooks 15 and 16 say of the H100, read from its recorded run."""
    from helpers import bench
    h100 = bench.load_result("then-and-now-nvidia-h100")
    assert h100["environment"]["device"]["device"].startswith("NVIDIA H100")
    assert not h100["subgroups"]["extension"] and h100["subgroups"]["max_num_sub_groups"] == 0
    assert h100["concurrent_kernels"]["speedup"] > 7
    assert cl.VERSION   # pyopencl imported: the file runs where the course runs


def test_oclgrind_has_no_sub_groups():
    """Notebook 15 says so: the checker's simulator cannot run a sub-group kernel."""
    from helpers.device import oclgrind_device
    dev = oclgrind_device()
    assert dev is not None
    assert "cl_khr_subgroups" not in dev.extensions
    assert int(dev.get_info(cl.device_info.MAX_NUM_SUB_GROUPS)) == 0
