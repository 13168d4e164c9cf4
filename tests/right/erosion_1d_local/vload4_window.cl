// RIGHT: strided load; the window is scanned from the tile four floats at a time with vload4, the rest one by one
__kernel void erosion_1d_local(__global const float *in,
                               __global float *out,
                               const uint n,
                               const uint radius,
                               __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint L = get_local_size(0);
    const long start = (long)get_group_id(0) * L - (long)radius;
    for (uint k = lid; k < L + 2 * radius; k += L) {
        const long g = start + k;
        tile[k] = (g < 0 || g >= (long)n) ? INFINITY : in[g];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_global_id(0) < n) {
        const uint w = 2 * radius + 1;
        __local const float *p = tile + lid;
        float4 m4 = (float4)(INFINITY);
        uint d = 0;
        for (; d + 4 <= w; d += 4)
            m4 = fmin(m4, vload4(0, p + d));
        float m = fmin(fmin(m4.x, m4.y), fmin(m4.z, m4.w));
        for (; d < w; ++d)
            m = fmin(m, p[d]);
        out[get_global_id(0)] = m;
    }
}
