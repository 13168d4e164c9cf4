/* RIGHT: no history at all: every output reads its (up to) 8 input samples straight from x, skipping the taps before t = 0.
 * Signed int loop counters make the t - k >= 0 test meaningful; the index itself is formed in uint.
 * The loads of one step are repeated by the next 7 steps, but they hit the cache, and nothing is
 * kept in a private array.
 */
__kernel void spill_fix(__global const float *x, __global float *y, __constant float *coef,
                        const uint channels, const uint steps)
{
    const uint c = get_global_id(0);
    if (c >= channels)
        return;
    for (int t = 0; t < (int)steps; ++t) {
        float acc = 0.0f;
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            if (t - k >= 0)
                acc += coef[k] * x[(uint)(t - k) * channels + c];
        }
        y[(uint)t * channels + c] = acc;
    }
}
