/* WRONG: the test `t - k >= 0` is on unsigned values and always true, so for t < 7 the taps before t = 0 read x at a wrapped-around index far past the end of the buffer.
 * Mistake: the learner reads x directly 8 times (a correct idea) but guards with uint arithmetic;
 *   t - k wraps to 2^32 - (k - t), and (t - k) * channels + c lands outside x.
 * Shows: y[t][c] for t = 0..6 (all of y when steps < 8), with out-of-bounds reads of x; from t = 7 on
 *   it is right.
 */
__kernel void spill_fix(__global const float *x, __global float *y, __constant float *coef,
                        const uint channels, const uint steps)
{
    const uint c = get_global_id(0);
    if (c >= channels)
        return;
    for (uint t = 0; t < steps; ++t) {
        float acc = 0.0f;
#pragma unroll
        for (uint k = 0; k < 8; ++k) {
            if (t - k >= 0)
                acc += coef[k] * x[(t - k) * channels + c];
        }
        y[t * channels + c] = acc;
    }
}
