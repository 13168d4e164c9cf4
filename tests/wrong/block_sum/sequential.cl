// Correct sequential-addressing tree reduction.
__kernel void block_sum(__global const int *src, __global int *partial, const uint n,
                        __local int *scratch)
{
    const uint lid = get_local_id(0);
    const uint i = get_global_id(0);
    scratch[lid] = i < n ? src[i] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
