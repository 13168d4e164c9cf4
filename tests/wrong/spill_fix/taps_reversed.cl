// Solution of spill_fix: the 8 last samples in 8 variables of their own, moved down by one at
// every step (a shift register). Every name is fixed when the kernel is compiled, so each one
// gets a register, where the ring of fir_ring (an array indexed by t % 8) lived in memory.

__kernel void spill_fix(__global const float *x, __global float *y, __constant float *coef,
                        const uint channels, const uint steps)
{
    const uint c = get_global_id(0);
    if (c >= channels)
        return;
    const float c0 = coef[0], c1 = coef[1], c2 = coef[2], c3 = coef[3],
                c4 = coef[4], c5 = coef[5], c6 = coef[6], c7 = coef[7];
    float h0 = 0.0f, h1 = 0.0f, h2 = 0.0f, h3 = 0.0f, h4 = 0.0f, h5 = 0.0f, h6 = 0.0f,
          h7 = 0.0f;
    for (uint t = 0; t < steps; ++t) {
        // oldest first, so that no sample is overwritten before it has moved on
        h7 = h6; h6 = h5; h5 = h4; h4 = h3; h3 = h2; h2 = h1; h1 = h0;
        h0 = x[t * channels + c];
        y[t * channels + c] = c7 * h0 + c6 * h1 + c5 * h2 + c4 * h3
                            + c3 * h4 + c2 * h5 + c1 * h6 + c0 * h7;
    }
}
