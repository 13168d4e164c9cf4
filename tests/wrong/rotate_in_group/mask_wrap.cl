// WRONG: wraps the neighbour's index with (l + 1) & (L - 1), which is (l + 1) % L only when the local size L is a power of two; the contract allows any L.
__kernel void rotate_in_group(__global const float *in,
                              __global float *out,
                              __local float *tile)
{
    const size_t i = get_global_id(0);
    const size_t l = get_local_id(0);
    const size_t L = get_local_size(0);
    tile[l] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = tile[(l + 1) & (L - 1)];
}
