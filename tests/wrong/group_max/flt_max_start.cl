// WRONG: the maximum starts from -FLT_MAX, the most negative float: right wherever a work-group
// has an element, but a work-group that covers none writes -FLT_MAX, not -INFINITY.
__kernel void group_max(__global const float *src, __global float *partial, const uint n,
                        __local float *scratch)
{
    const uint lid = get_local_id(0);
    float m = -FLT_MAX;
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        m = fmax(m, src[i]);
    scratch[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] = fmax(scratch[lid], scratch[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
