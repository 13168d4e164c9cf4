// RIGHT: a tree that folds the active slots in half around their middle (slot lid adds slot 2s - 1 - lid) instead of adding lid + s; a barrier after every step, reached by all.
__kernel void parallel_sum(__global const int *src,
                           __global int *partial,
                           const uint n,
                           __local int *scratch)
{
    const uint lid = get_local_id(0);
    int sum = 0;
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        sum += src[i];
    scratch[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] += scratch[2 * s - 1 - lid];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
