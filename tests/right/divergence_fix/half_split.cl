/* RIGHT: static thread reordering by halves: work-items below ceil(n/2) take the even elements in order, the rest the odd ones, so only the single warp straddling ceil(n/2) diverges.
 * Unusual: the branch stays in the kernel, but its condition g >= evens changes once in the whole range,
 *   so all the warps but one take the same side; reads and writes have stride 2 (half-coalesced).
 * Why correct: with evens = ceil(n/2) (computed as n/2 + (n & 1), no overflow), g < evens maps to
 *   i = 2g in [0, n) and evens <= g < n maps to i = 2(g - evens) + 1 < n: a bijection from the
 *   work-items [0, n) onto the elements [0, n); work-items g >= n (the range may exceed n) return; each
 *   element goes through the step of its own parity exactly as in the reference, same expressions.
 */
__kernel void divergence_fix(__global const float *x,
                             __global float *y,
                             const uint n,
                             const uint rounds)
{
    const uint g = get_global_id(0);
    if (g >= n)
        return;

    const uint evens = n / 2 + (n & 1u);
    const int odd = g >= evens;
    const uint i = odd ? 2u * (g - evens) + 1u : 2u * g;

    float v = x[i];
    if (odd) {
        for (uint r = 0; r < rounds; ++r)
            v = 0.25f * v * v - 0.5f;
    } else {
        for (uint r = 0; r < rounds; ++r)
            v = 0.9f * v + 0.1f;
    }
    y[i] = v;
}
