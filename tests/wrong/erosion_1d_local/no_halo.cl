// Wrong: each work-item loads its own element into the tile; the halo is never loaded.
__kernel void erosion_1d_local(__global const float *in, __global float *out, const uint n,
                               const uint radius, __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint i = get_global_id(0);
    tile[lid + radius] = i < n ? in[i] : INFINITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n) {
        const uint first = max(i, radius) - radius;   // clipped to the data,
        const uint last = min(i + radius, n - 1);     // but read from the tile
        float m = INFINITY;
        for (uint j = first; j <= last; ++j)
            m = fmin(m, tile[j - i + lid + radius]);
        out[i] = m;
    }
}
