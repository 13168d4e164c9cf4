// WRONG: the barrier only for the work-items that read a neighbour that is not themselves
// (the last one "wraps", so it is left out): a barrier not every work-item reaches.
__kernel void rotate_in_group(__global const float *in, __global float *out, __local float *tile)
{
    const size_t i = get_global_id(0);
    const size_t l = get_local_id(0);
    const size_t L = get_local_size(0);
    tile[l] = in[i];
    if (l + 1 < L) {
        barrier(CLK_LOCAL_MEM_FENCE);
        out[i] = tile[l + 1];
    } else {
        out[i] = tile[0];
    }
}
