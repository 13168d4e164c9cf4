/* WRONG: static reordering in blocks of 64 work-items (the first 32 take the block's even elements, the last 32 its odd ones), which assumes the global size covers n rounded up to 64.
 * Mistake: work-item g handles element base + 2r (r = g mod 64 < 32) or base + 2(r - 32) + 1 (r >= 32),
 *   base = g - r. An odd element base + o of the last block is handled by work-item base + 32 + (o-1)/2,
 *   which does not exist when the range stops short of it; the global size is only rounded up to a
 *   multiple of the work-group size, not of 64. The arithmetic of the two steps is right and no
 *   element is computed twice.
 * Shows: only when global size < (start of the last 64-block holding data) + 32 + (its last odd offset
 *   - 1)/2 + 1, which needs a global size that is not a multiple of 64: e.g. n = 70 with global size
 *   70 or 80 (work-groups of 10, 35, 70 or 16, 40, 80) leaves y[65], y[67], y[69] unwritten; n = 5 with
 *   global size 5 leaves y[1], y[3]. Any global size that is a multiple of 64 (work-groups of 64, 128,
 *   256, ...) is right.
 * A good checker's first sentence: "y at odd indices near the end (first: y[<i>]) was never written:
 *   the reordering maps those elements to work-items beyond the global size, which is rounded up to
 *   the work-group size, not to 64."
 */
__kernel void divergence_fix(__global const float *x,
                             __global float *y,
                             const uint n,
                             const uint rounds)
{
    const uint g = get_global_id(0);
    const uint r = g & 63u;
    const uint base = g - r;
    const uint odd = r >= 32u;                       /* the same for a whole 32-wide warp */
    const uint i = base + (odd ? 2u * (r - 32u) + 1u : 2u * r);
    if (i >= n)
        return;

    float v = x[i];
    if (odd) {
        for (uint k = 0; k < rounds; ++k)
            v = 0.25f * v * v - 0.5f;
    } else {
        for (uint k = 0; k < rounds; ++k)
            v = 0.9f * v + 0.1f;
    }
    y[i] = v;
}
