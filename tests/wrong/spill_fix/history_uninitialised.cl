/* WRONG: the eight history variables are declared but never set to zero, so the first 7 outputs of every signal add coefficients times uninitialised values.
 * Mistake: `float h0, h1, ..., h7;` instead of `= 0.0f`. For t < 7 the taps k > t read whatever the
 *   registers held (often 0 by luck on a CPU, anything on a GPU).
 * Shows: y[t][c] for t = 0..6 (all of y when steps < 8); from t = 7 on the history is filled and right.
 */
__kernel void spill_fix(__global const float *x, __global float *y, __constant float *coef,
                        const uint channels, const uint steps)
{
    const uint c = get_global_id(0);
    if (c >= channels)
        return;
    const float c0 = coef[0], c1 = coef[1], c2 = coef[2], c3 = coef[3],
                c4 = coef[4], c5 = coef[5], c6 = coef[6], c7 = coef[7];
    float h0, h1, h2, h3, h4, h5, h6, h7;
    for (uint t = 0; t < steps; ++t) {
        h7 = h6; h6 = h5; h5 = h4; h4 = h3; h3 = h2; h2 = h1; h1 = h0;
        h0 = x[t * channels + c];
        y[t * channels + c] = c0 * h0 + c1 * h1 + c2 * h2 + c3 * h3
                            + c4 * h4 + c5 * h5 + c6 * h6 + c7 * h7;
    }
}
