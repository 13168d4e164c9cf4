// WRONG: work-item 0 loads the left halo and, in an else-if, the last work-item loads the right halo, so with a work-group of one work-item the right halo is never loaded.
__kernel void erosion_1d_local(__global const float *in,
                               __global float *out,
                               const uint n,
                               const uint radius,
                               __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint i = get_global_id(0);
    const long block = (long)(i - lid);
    tile[radius + lid] = i < n ? in[i] : INFINITY;
    if (lid == 0) {
        for (uint k = 0; k < radius; ++k) {
            const long j = block - (long)radius + k;
            tile[k] = j >= 0 ? in[j] : INFINITY;
        }
    } else if (lid == size - 1) {
        for (uint k = 0; k < radius; ++k) {
            const long j = block + size + k;
            tile[radius + size + k] = j < (long)n ? in[j] : INFINITY;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n) {
        float m = tile[lid];
        for (uint k = 1; k <= 2 * radius; ++k)
            m = fmin(m, tile[lid + k]);
        out[i] = m;
    }
}
