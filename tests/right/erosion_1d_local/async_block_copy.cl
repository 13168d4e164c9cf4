// RIGHT: the part of the tile inside the data arrives by one async_work_group_copy, the rest is filled with INFINITY by a strided loop; wait_group_events and a barrier, then the window from the tile.
__kernel void erosion_1d_local(__global const float *in,
                               __global float *out,
                               const uint n,
                               const uint radius,
                               __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint width = size + 2 * radius;
    const long start = (long)(get_global_id(0) - lid) - (long)radius;
    const long lo = max(start, 0L);
    const long hi = min(start + (long)width, (long)n);
    for (uint k = lid; k < width; k += size) {
        const long j = start + k;
        if (j < 0 || j >= (long)n)
            tile[k] = INFINITY;
    }
    const size_t count = hi > lo ? (size_t)(hi - lo) : 0;
    const size_t offset = hi > lo ? (size_t)(lo - start) : 0;
    const size_t from = hi > lo ? (size_t)lo : 0;
    event_t e = async_work_group_copy(tile + offset, in + from, count, 0);
    wait_group_events(1, &e);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint i = get_global_id(0);
    if (i < n) {
        float m = tile[lid];
        for (uint k = 1; k <= 2 * radius; ++k)
            m = fmin(m, tile[lid + k]);
        out[i] = m;
    }
}
