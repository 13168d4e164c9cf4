/* WRONG: work-items past the data return before the barrier, so the last work-group's barrier is reached by only part of it and their tile slots stay unwritten.
 * Mistake: `if (i >= n) return;` at the top, before the tile load and barrier(). The rest (a strided
 *   load of all local size + 2*radius slots with INFINITY outside the data, the barrier, the window
 *   over tile[lid .. lid + 2*radius]) is right.
 * Shows: only when a work-group straddles n, i.e. global size > n and n is not a multiple of the local
 *   size: that group hits barrier divergence (undefined: a hang on some GPUs, a barrier error in
 *   Oclgrind), and the slots those work-items should fill (slots k with k mod local size >=
 *   n - group start: among them the slots of the last radius data elements and the INFINITY slots
 *   past the data) hold garbage, so out[] for the last elements of the data may be wrong. Groups
 *   lying wholly past n return together, which is legal; if n is a multiple of the local size, every
 *   launch is right.
 * A good checker's first sentence: "work-items with i >= n return before barrier(), which the rest of
 *   their work-group then waits at (barrier divergence), and they leave their tile slots unloaded; let
 *   them load INFINITY and reach the barrier, and guard only the store to out."
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
    if (i >= n)
        return;                                   /* nothing to compute here */

    const int start = (int)(get_group_id(0) * lsize);
    for (uint k = lid; k < lsize + 2 * radius; k += lsize) {
        const int g = start - (int)radius + (int)k;
        tile[k] = (g >= 0 && g < (int)n) ? in[g] : INFINITY;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float m = INFINITY;
    for (uint k = lid; k <= lid + 2 * radius; ++k)
        m = fmin(m, tile[k]);
    out[i] = m;
}
