// WRONG: the left-hand neighbour instead of the right-hand one: each block rotated the other way.
__kernel void rotate_in_group(__global const float *in, __global float *out, __local float *tile)
{
    const size_t i = get_global_id(0);
    const size_t l = get_local_id(0);
    const size_t L = get_local_size(0);
    tile[l] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = tile[(l + L - 1) % L];
}
