// WRONG: the tile is written and read once, a decoy; the window comes from global memory.
__kernel void erosion_1d_local(__global const float *in, __global float *out, const uint n,
                               const uint radius, __local float *tile)
{
    const int i = get_global_id(0);
    const int lid = get_local_id(0);
    tile[lid] = i < n ? in[i] : INFINITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i >= n)
        return;
    float m = tile[lid];
    for (int k = -(int)radius; k <= (int)radius; k++) {
        const int j = i + k;
        if (j >= 0 && j < (int)n)
            m = fmin(m, in[j]);
    }
    out[i] = m;
}
