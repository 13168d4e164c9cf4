"""Notebook 07's transfers and overlap: every kind of host memory moves the right bytes, the
chunked pipeline gives numpy's result on one queue and on two, and its timeline is complete."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

from helpers import plots
from helpers.device import course_context
from helpers.studies import transfers

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def cq():
    return course_context(quiet=True)


def test_bandwidth_rows_cover_every_kind_and_size(cq):
    ctx, queue = cq
    result = transfers.bandwidth(ctx, queue, sizes=[1 << 12, 1 << 16], repeats=2)
    kinds = list(transfers.KINDS if transfers.shares_host_memory(queue.device)
                 else transfers.KINDS[:2])
    assert [(r["kind"], r["bytes"]) for r in result["rows"]] == \
        [(k, s) for s in (1 << 12, 1 << 16) for k in kinds]
    for r in result["rows"]:
        assert r["h2d_seconds"] > 0 and r["d2h_seconds"] > 0
        assert r["h2d_gb_per_s"] == pytest.approx(r["bytes"] / r["h2d_seconds"] / 1e9)
    plots.transfer_bandwidth(result)


def test_a_pinned_buffer_holds_what_was_copied_through_it(cq):
    """The pinned path of :func:`transfers.bandwidth`: a copy out of a mapped ALLOC_HOST_PTR
    buffer and back into it keeps the bytes."""
    import pyopencl as cl
    ctx, queue = cq
    buf, view = transfers._pinned(ctx, queue, 4096)
    data = np.random.default_rng().random(1024, dtype=np.float32)
    view[:] = data
    dev_g = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4096)
    cl.enqueue_copy(queue, dev_g, view)
    view[:] = 0
    cl.enqueue_copy(queue, view, dev_g)
    queue.finish()
    assert np.array_equal(view, data)
    view.base.release(queue).wait()


def test_overlap_is_right_on_one_queue_and_on_two_and_times_every_command(cq):
    ctx, queue = cq
    result = transfers.overlap(ctx, queue, chunks=6, chunk_bytes=1 << 16, rounds=5)
    one, two = result["runs"]
    assert one["correct"] and two["correct"]
    for run, queues in ((one, {0}), (two, {0, 1})):
        assert len(run["commands"]) == 3 * 6
        assert {c["queue"] for c in run["commands"]} == queues
        assert min(c["start"] for c in run["commands"]) == 0.0
        for c in run["commands"]:
            assert c["end"] >= c["start"]
        # within a chunk, copy in, kernel and copy out follow each other (one in-order queue)
        for chunk in range(6):
            steps = [c for c in run["commands"] if c["chunk"] == chunk]
            assert [c["what"] for c in steps] == ["copy in", "kernel", "copy out"]
            assert steps[0]["end"] <= steps[1]["start"] + 1e-9
            assert steps[1]["end"] <= steps[2]["start"] + 1e-9
        assert run["seconds"] == max(c["end"] for c in run["commands"])
    plots.timeline(result)
