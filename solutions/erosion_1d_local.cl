// Solution of erosion_1d_local: load a tile with its halo, synchronize, then read locally.

__kernel void erosion_1d_local(__global const float *in,
                               __global float *out,
                               const uint n,
                               const uint radius,
                               __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint width = size + 2 * radius;
    // tile[k] holds in[start + k]; start is negative for the groups that begin within radius of 0.
    const long start = (long)(get_global_id(0) - lid) - (long)radius;

    // A strided loop loads the block and both halos whatever the radius (even radius > size).
    // Outside the data INFINITY stands in: it never wins a minimum, which clips the window.
    for (uint k = lid; k < width; k += size) {
        const long j = start + k;
        tile[k] = (j >= 0 && j < (long)n) ? in[j] : INFINITY;
    }
    // Every work-item reads tile elements that others wrote: all of them must be written first.
    // Every work-item reaches this barrier, including those past n.
    barrier(CLK_LOCAL_MEM_FENCE);

    const uint i = get_global_id(0);
    if (i < n) {
        float m = tile[lid];
        for (uint k = 1; k <= 2 * radius; ++k)
            m = fmin(m, tile[lid + k]);
        out[i] = m;
    }
}
