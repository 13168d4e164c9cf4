// WRONG: a barrier, but in the wrong place: after the read of the neighbour's element, where it
// protects nothing. The read may still come before the neighbour's store.
__kernel void rotate_in_group(__global const float *in, __global float *out, __local float *tile)
{
    const size_t i = get_global_id(0);
    const size_t l = get_local_id(0);
    const size_t L = get_local_size(0);
    tile[l] = in[i];
    out[i] = tile[(l + 1) % L];
    barrier(CLK_LOCAL_MEM_FENCE);
}
