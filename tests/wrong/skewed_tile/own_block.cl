// WRONG: the tile loaded from the work-group's own block rather than the mirrored one (group ids
// not swapped), then read down a column through the skew: each element gets a neighbour of its
// own block, not its mirror.
__kernel void skewed_tile(__global const float *in, __global float *out, const uint n,
                          __local float *tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint x = get_global_id(0), y = get_global_id(1);
    if (x < n && y < n)
        tile[ly * T + (lx + ly) % T] = in[y * n + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < n && y < n)
        out[y * n + x] = in[y * n + x] + tile[lx * T + (ly + lx) % T];
}
