/* RIGHT: the window bounds are computed in signed 64-bit long, so neither i - radius nor i + radius can wrap.
 * Unusual: long arithmetic and max/min on long for the clipping, the running minimum starts from in[i]
 *   instead of INFINITY, and the index comes from size_t.
 * Why correct: with 64-bit signed values i - radius may be negative and i + radius cannot overflow for any
 *   uint radius, so [max(0, i-r), min(n-1, i+r)] is exactly the contract's window; it always contains i,
 *   so starting from in[i] changes nothing; work-items with i >= n (global size past n) return before
 *   any access, and n = 0 never evaluates n - 1 with a reader.
 */
__kernel void erosion_1d(__global const float *in,
                         __global float *out,
                         const uint n,
                         const uint radius)
{
    const size_t i = get_global_id(0);
    if (i >= (size_t)n)
        return;

    const long lo = max((long)i - (long)radius, 0L);
    const long hi = min((long)i + (long)radius, (long)n - 1);

    float m = in[i];
    for (long j = lo; j <= hi; ++j)
        m = fmin(m, in[j]);
    out[i] = m;
}
