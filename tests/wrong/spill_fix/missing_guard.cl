/* WRONG: there is no `if (c >= channels) return;`, so when the global size exceeds channels the extra work-items read and write past their signal, into the next time step's samples and past the end of x and y.
 * Mistake: the guard was dropped while rewriting the ring as a shift register. Work-item c >= channels
 *   writes y[t * channels + c], which is sample t + 1 of signal c - channels (a race with that
 *   signal's own work-item), and for the last step it writes past the end of y.
 * Shows: only when the global size is larger than channels; out-of-bounds reads and writes of x and y.
 */
__kernel void spill_fix(__global const float *x, __global float *y, __constant float *coef,
                        const uint channels, const uint steps)
{
    const uint c = get_global_id(0);
    const float c0 = coef[0], c1 = coef[1], c2 = coef[2], c3 = coef[3],
                c4 = coef[4], c5 = coef[5], c6 = coef[6], c7 = coef[7];
    float h0 = 0.0f, h1 = 0.0f, h2 = 0.0f, h3 = 0.0f, h4 = 0.0f, h5 = 0.0f, h6 = 0.0f,
          h7 = 0.0f;
    for (uint t = 0; t < steps; ++t) {
        h7 = h6; h6 = h5; h5 = h4; h4 = h3; h3 = h2; h2 = h1; h1 = h0;
        h0 = x[t * channels + c];
        y[t * channels + c] = c0 * h0 + c1 * h1 + c2 * h2 + c3 * h3
                            + c4 * h4 + c5 * h5 + c6 * h6 + c7 * h7;
    }
}
