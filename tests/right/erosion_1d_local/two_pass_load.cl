/* RIGHT: the tile is loaded in two passes, the work-item's own element first, then the 2*radius halo slots shared round-robin.
 * Unusual: pass 1 stores the centre slot tile[radius + lid]; pass 2 numbers the halo slots h = 0 .. 2r-1
 *   (h < r: left slot h; otherwise right slot local size + h) and strides over them by the local size;
 *   the block start is get_global_id(0) - lid; the window is read symmetrically, two slots per step.
 * Why correct: the centre slots [r, r + L) and the halo slots [0, r) and [L + r, L + 2r) cover the
 *   L + 2r floats of tile exactly once for any local size L >= 1 and any radius (even radius > L);
 *   slots outside the data get INFINITY, which never lowers a minimum, so the window is clipped; every
 *   work-item, including those past n, loads its slots and reaches the single barrier; only the store
 *   to out is guarded.
 */
__kernel void erosion_1d_local(__global const float *in,
                               __global float *out,
                               const uint n,
                               const uint radius,
                               __local float *tile)
{
    const size_t i = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint lsize = get_local_size(0);
    const long start = (long)(i - lid);            /* this work-group's first element */

    /* pass 1: the block itself */
    tile[radius + lid] = (i < (size_t)n) ? in[i] : INFINITY;

    /* pass 2: the halo, radius slots on each side */
    for (uint h = lid; h < 2u * radius; h += lsize) {
        const uint slot = (h < radius) ? h : lsize + h;
        const long g = start - (long)radius + (long)slot;
        tile[slot] = (g >= 0 && g < (long)n) ? in[g] : INFINITY;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (i < (size_t)n) {
        const uint c = lid + radius;               /* this element's slot */
        float m = tile[c];
        for (uint d = 1; d <= radius; ++d)
            m = fmin(m, fmin(tile[c - d], tile[c + d]));
        out[i] = m;
    }
}
