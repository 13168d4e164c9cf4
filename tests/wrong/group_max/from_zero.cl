// WRONG: the maximum starts from 0, as the sum did in parallel_sum: 0 beats every negative value.
__kernel void group_max(__global const float *src, __global float *partial, const uint n,
                        __local float *scratch)
{
    const uint lid = get_local_id(0);
    float m = 0.0f;
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
