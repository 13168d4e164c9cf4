// WRONG: each work-item's maximum is taken branch-free as (a + b + |a - b|) / 2, which overflows to infinity when both values exceed FLT_MAX / 2 or huge values have opposite signs.
__kernel void group_max(__global const float *src,
                        __global float *partial,
                        const uint n,
                        __local float *scratch)
{
    const uint lid = get_local_id(0);
    const size_t G = get_global_size(0);
    size_t i = get_global_id(0);
    float m = (i < n) ? src[i] : -INFINITY;
    for (i += G; i < n; i += G) {
        const float v = src[i];
        m = 0.5f * (m + v + fabs(m - v));
    }
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
