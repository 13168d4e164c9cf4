// WRONG: right values, but the tile is a decoy: each work-item stores its element and reads it
// back, then reads its neighbour's straight from global memory.
__kernel void rotate_in_group(__global const float *in, __global float *out, __local float *tile)
{
    const size_t i = get_global_id(0), l = get_local_id(0), L = get_local_size(0);
    tile[l] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    const float mine = tile[l];
    out[i] = in[i - l + (l + 1) % L] + 0.0f * mine;
}
