"""The demo kernels the notebooks run, and the peak kernels of helpers/cl, checked against numpy on
fresh random data at several sizes (DESIGN.md: every kernel the course ships)."""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pytest

from helpers import bench
from helpers.device import course_context
from helpers.exercises import Case, get, rounded_up
from helpers.kernels import build

mf = cl.mem_flags


@pytest.fixture(scope="module")
def cq():
    return course_context(quiet=True)


@pytest.mark.parametrize("block, blocks", [(64, 1), (64, 37)])
def test_reverse_blocks_both_ways(cq, block, blocks):
    ctx, queue = cq
    prg = build(ctx, "local_memory")
    x_np = np.random.default_rng().uniform(-1, 1, block * blocks).astype(np.float32)
    x_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x_np)
    expected = x_np.reshape(blocks, block)[:, ::-1].ravel()
    for launch in (lambda y_g: prg.reverse_blocks_fixed(queue, x_np.shape, (block,), x_g, y_g),
                   lambda y_g: prg.reverse_blocks(queue, x_np.shape, (block,), x_g, y_g,
                                                  cl.LocalMemory(block * 4))):
        y_g = cl.Buffer(ctx, mf.WRITE_ONLY, x_np.nbytes)
        launch(y_g)
        y_np = np.empty_like(x_np)
        cl.enqueue_copy(queue, y_np, y_g)
        assert np.array_equal(y_np, expected)


@pytest.mark.parametrize("width, height, radius", [(37, 21, 2), (64, 48, 0), (5, 90, 3)])
def test_erosion_through_an_image_equals_the_exercise_reference(cq, width, height, radius):
    ctx, queue = cq
    if not queue.device.image_support:
        pytest.fail("the course device has no image support; notebook 03 skips its image demo")
    img_np = np.random.default_rng().uniform(-100, 100, (height, width)).astype(np.float32)
    case = Case((width, height), (1, 1), {"width": width, "height": height, "radius": radius})
    want = get("erosion_2d").reference(case, {"in": img_np.ravel()})["out"]
    fmt = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
    img_in = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, shape=(width, height),
                             hostbuf=img_np)
    img_out = cl.create_image(ctx, mf.WRITE_ONLY, fmt, shape=(width, height))
    prg = build(ctx, "erosion_image")
    prg.erosion_image(queue, (rounded_up(width, 16), rounded_up(height, 16)), (16, 16), img_in,
                      img_out, np.int32(radius))
    out_np = np.empty_like(img_np)
    cl.enqueue_copy(queue, out_np, img_out, origin=(0, 0), region=(width, height))
    assert np.array_equal(out_np.ravel(), want)


@pytest.mark.parametrize("width", bench.PEAK_WIDTHS)
def test_peak_kernels_compute_what_they_claim(cq, width):
    ctx, queue = cq
    prg = bench._peak_program(ctx, width, rounds=2)
    items, per = 64, 5
    x_np = np.random.default_rng().integers(-8, 8, items * per * width).astype(np.float32)
    x_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x_np)
    out_g = cl.Buffer(ctx, mf.WRITE_ONLY, items * 4)
    out_np = np.empty(items, np.float32)
    vecs = x_np.reshape(-1, width)  # vector k of the buffer
    strided = vecs.reshape(per, items, width).sum(axis=(0, 2))       # work-item i: k = i + j*items
    chunked = vecs.reshape(items, per, width).sum(axis=(1, 2))       # work-item i: k = i*per + j
    for name, want in (("read_bandwidth", strided), ("read_bandwidth_chunked", chunked)):
        getattr(prg, name)(queue, (items,), (16,), x_g, out_g, np.uint32(per))
        cl.enqueue_copy(queue, out_np, out_g)
        assert np.array_equal(out_np, want), name
    copy_g = cl.Buffer(ctx, mf.WRITE_ONLY, x_np.nbytes)
    prg.copy_bandwidth(queue, (items * per,), (16,), x_g, copy_g)
    copied = np.empty_like(x_np)
    cl.enqueue_copy(queue, copied, copy_g)
    assert np.array_equal(copied, x_np)
