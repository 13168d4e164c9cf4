// Wrong: the barrier sits inside if (i < n): work-items past n never reach it.
__kernel void erosion_1d_local(__global const float *in, __global float *out, const uint n,
                               const uint radius, __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const long start = (long)(get_global_id(0) - lid) - (long)radius;
    const uint i = get_global_id(0);
    if (i < n) {
        for (uint k = lid; k < size + 2 * radius; k += size) {
            const long j = start + k;
            tile[k] = (j >= 0 && j < (long)n) ? in[j] : INFINITY;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        float m = tile[lid];
        for (uint k = 1; k <= 2 * radius; ++k)
            m = fmin(m, tile[lid + k]);
        out[i] = m;
    }
}
