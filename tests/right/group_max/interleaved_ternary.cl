// RIGHT: interleaved addressing (the pairs 2s apart, the slot 0 keeps the result), a ?: for the
// maximum, and the loop seeded from the first element or -INFINITY rather than by a constant.
__kernel void group_max(__global const float *src, __global float *partial, const uint n,
                        __local float *scratch)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    uint i = get_global_id(0);
    float m = i < n ? src[i] : -INFINITY;
    for (i += get_global_size(0); i < n; i += get_global_size(0))
        m = src[i] > m ? src[i] : m;
    scratch[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < size; s *= 2) {
        if (lid % (2 * s) == 0)
            scratch[lid] = scratch[lid + s] > scratch[lid] ? scratch[lid + s] : scratch[lid];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
