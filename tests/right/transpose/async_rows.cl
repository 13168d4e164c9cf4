// RIGHT: the tile's rows arrive by one async_work_group_copy per row of the block (clipped to the matrix, chained on one event), a group that covers no element leaves at once, then the guarded transposed store.
__kernel void transpose(__global const float *in,
                        __global float *out,
                        const uint width,
                        const uint height,
                        __local float *tile)
{
    const uint t = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint bx = get_group_id(0) * t, by = get_group_id(1) * t;
    if (bx >= width || by >= height)
        return;   // the whole group: no work-item of it reaches the barrier
    const uint cols = min(t, width - bx);
    const uint rows = min(t, height - by);
    event_t e = 0;
    for (uint r = 0; r < rows; ++r)
        e = async_work_group_copy(tile + r * (t + 1), in + (size_t)(by + r) * width + bx, cols, e);
    wait_group_events(1, &e);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint ox = by + lx, oy = bx + ly;
    if (ox < height && oy < width)
        out[oy * height + ox] = tile[lx * (t + 1) + ly];
}
