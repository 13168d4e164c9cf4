// WRONG: right values, but the tile is a decoy: each work-item stores its own element and reads it
// back, and the transposed element comes straight from global memory, down a column.
__kernel void skewed_tile(__global const float *in, __global float *out, const uint n,
                          __local float *tile)
{
    const uint x = get_global_id(0), y = get_global_id(1);
    const uint lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    tile[lid] = (x < n && y < n) ? in[y * n + x] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < n && y < n)
        out[y * n + x] = tile[lid] + in[x * n + y];
}
