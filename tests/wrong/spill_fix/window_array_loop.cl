// WRONG: the technique is missing: the last 8 samples in a private array, moved down by a loop the compiler is
// told not to unroll; the taps read it with a run-time index too. Right values, but the array cannot
// live in registers: every step goes through private memory, which a GPU spills.
__kernel void spill_fix(__global const float *x, __global float *y, __constant float *coef,
                        const uint channels, const uint steps)
{
    const uint c = get_global_id(0);
    if (c >= channels)
        return;
    float h[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (uint t = 0; t < steps; ++t) {
        __attribute__((opencl_unroll_hint(1)))
        for (uint k = 7; k > 0; --k)
            h[k] = h[k - 1];
        h[0] = x[t * channels + c];
        float s = 0.0f;
        __attribute__((opencl_unroll_hint(1)))
        for (uint k = 0; k < 8; ++k)
            s += coef[k] * h[k];
        y[t * channels + c] = s;
    }
}
