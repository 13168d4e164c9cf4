// WRONG: fills the halo outside the data with FLT_MAX / 2 instead of INFINITY, so an edge window whose values all exceed FLT_MAX / 2 gets FLT_MAX / 2.
__kernel void erosion_1d_local(__global const float *in,
                               __global float *out,
                               const uint n,
                               const uint radius,
                               __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint width = size + 2 * radius;
    const long start = (long)(get_global_id(0) - lid) - (long)radius;
    for (uint k = lid; k < width; k += size) {
        const long j = start + k;
        tile[k] = (j >= 0 && j < (long)n) ? in[j] : FLT_MAX / 2;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint i = get_global_id(0);
    if (i < n) {
        float m = tile[lid];
        for (uint k = 1; k <= 2 * radius; ++k)
            m = fmin(m, tile[lid + k]);
        out[i] = m;
    }
}
