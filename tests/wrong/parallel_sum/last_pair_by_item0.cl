// WRONG: the tree stops at two slots and work-item 0 adds scratch[0] + scratch[1], which assumes at least two work-items per group: with a work-group of 1 it reads scratch[1] past the local buffer.
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
    for (uint s = get_local_size(0) / 2; s > 1; s /= 2) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0] + scratch[1];
}
