/* WRONG: the window's first index i - radius is computed in uint, so near the left edge it wraps around and the window is empty.
 * Mistake: `max(i - radius, 0u)` cannot clip: for i < radius, i - radius wraps to a huge uint, max keeps
 *   it, the loop `j <= last` never runs, and out[i] stays INFINITY.
 * Shows: for the first min(radius, n) elements whenever radius > 0; radius = 0 is right, and every
 *   element with i >= radius is right (including the clip at n - 1).
 * A good checker's first sentence: "out[0 .. radius) are INFINITY: i - radius is a uint and wraps around
 *   below 0, so the window is empty; clip before subtracting (i > radius ? i - radius : 0)."
 */
__kernel void erosion_1d(__global const float *in,
                         __global float *out,
                         const uint n,
                         const uint radius)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;

    const uint first = max(i - radius, 0u);
    const uint last = min(i + radius, n - 1);

    float m = INFINITY;
    for (uint j = first; j <= last; ++j)
        m = fmin(m, in[j]);
    out[i] = m;
}
