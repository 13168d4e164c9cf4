/* WRONG: the tile load loop runs one step too far and writes one float past the end of tile.
 * Mistake: the loop bound is `k <= local size + 2*radius` where `<` is meant, so the work-item with
 *   local id (local size + 2*radius) mod local size stores tile[local size + 2*radius], one past the
 *   end of the local buffer the host sized to local size + 2*radius floats. (The global read for that
 *   slot is guarded, so no global access is out of bounds, and every value in out[] is right.)
 * Shows: in every launch, but only as an out-of-bounds local-memory write: the outputs are right, so
 *   only a bounds-checking device (Oclgrind) or a driver that places other local data right after the
 *   tile sees it.
 * A good checker's first sentence: "the kernel writes tile[<local size + 2*radius>], one float past the
 *   end of tile: the load loop's bound should be k < local size + 2*radius."
 */
__kernel void erosion_1d_local(__global const float *in,
                               __global float *out,
                               const uint n,
                               const uint radius,
                               __local float *tile)
{
    const uint i = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint lsize = get_local_size(0);
    const long start = (long)get_group_id(0) * lsize;

    for (uint k = lid; k <= lsize + 2 * radius; k += lsize) {
        const long g = start - (long)radius + (long)k;
        tile[k] = (g >= 0 && g < (long)n) ? in[g] : INFINITY;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (i < n) {
        float m = INFINITY;
        for (uint k = 0; k <= 2 * radius; ++k)
            m = fmin(m, tile[lid + k]);
        out[i] = m;
    }
}
