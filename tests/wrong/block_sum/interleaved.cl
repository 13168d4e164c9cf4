// Correct interleaved-addressing tree reduction; PoCL 3.x returns wrong sums for it.
__kernel void block_sum(__global const int *src, __global int *partial, const uint n,
                        __local int *scratch)
{
    const uint lid = get_local_id(0);
    const uint i = get_global_id(0);
    scratch[lid] = i < n ? src[i] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < get_local_size(0); s *= 2) {
        if (lid % (2 * s) == 0)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
