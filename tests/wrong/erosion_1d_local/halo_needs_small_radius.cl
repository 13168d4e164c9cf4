/* WRONG: each work-item with local id < radius loads one halo slot per side, so when radius exceeds the work-group size part of the halo is never loaded.
 * Mistake: the classic "if (lid < radius) { left halo; right halo }" load writes tile[lid] and
 *   tile[lid + local size + radius] for lid < min(radius, local size): the halo slots
 *   [local size, radius) on the left and [2*local size + radius, local size + 2*radius) on the right
 *   are never written when radius > local size, yet every work-item's window reads them.
 * Shows: only when radius > the work-group size (tiny work-groups: local size 1, 2, 4 ... with a larger
 *   radius). With radius <= local size every launch is right, including global size > n.
 * A good checker's first sentence: "with radius (<r>) larger than the work-group (<L>), tile slots of the
 *   halo were read but never written: only work-items with local id < radius load the halo, one slot
 *   per side each; load the tile with a loop k = lid, lid + local size, ... < local size + 2*radius."
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

    tile[lid + radius] = (i < n) ? in[i] : INFINITY;
    if (lid < radius) {
        /* left halo: radius elements before the block */
        tile[lid] = (i >= radius && i - radius < n) ? in[i - radius] : INFINITY;
        /* right halo: radius elements after the block */
        tile[lid + lsize + radius] = (i + lsize < n) ? in[i + lsize] : INFINITY;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (i < n) {
        float m = INFINITY;
        for (uint k = 0; k <= 2 * radius; ++k)
            m = fmin(m, tile[lid + k]);
        out[i] = m;
    }
}
