// Solution of parallel_sum: a grid-stride loop, then a tree with sequential addressing.

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
    // the lower half adds the upper half: active work-items stay packed in the first warps
    for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);  // outside the if: every work-item reaches it
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
