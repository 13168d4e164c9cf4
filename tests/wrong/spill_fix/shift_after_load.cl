/* WRONG: the new sample is stored in h0 before the shift, so h1 receives x[t] instead of x[t-1] and every tap k >= 1 sees x[t-k+1].
 * Mistake: `h0 = x[...]` placed above `h7 = h6; ...; h1 = h0;` instead of below it. The sample
 *   x[t-7] never takes part, and x[t] is counted with coef[0] + coef[1].
 * Shows: every output from t = 0 on (y[0] = (coef[0] + coef[1]) x[0] instead of coef[0] x[0]).
 */
__kernel void spill_fix(__global const float *x, __global float *y, __constant float *coef,
                        const uint channels, const uint steps)
{
    const uint c = get_global_id(0);
    if (c >= channels)
        return;
    float h0 = 0.0f, h1 = 0.0f, h2 = 0.0f, h3 = 0.0f, h4 = 0.0f, h5 = 0.0f, h6 = 0.0f,
          h7 = 0.0f;
    for (uint t = 0; t < steps; ++t) {
        h0 = x[t * channels + c];
        h7 = h6; h6 = h5; h5 = h4; h4 = h3; h3 = h2; h2 = h1; h1 = h0;
        y[t * channels + c] = coef[0] * h0 + coef[1] * h1 + coef[2] * h2 + coef[3] * h3
                            + coef[4] * h4 + coef[5] * h5 + coef[6] * h6 + coef[7] * h7;
    }
}
