// RIGHT: unusual: the history in a private array, but every index is a constant once the loops are
// unrolled (#pragma unroll over fixed trip counts), so the compiler keeps the 8 samples in registers.
__kernel void spill_fix(__global const float *x, __global float *y, __constant float *coef,
                        const uint channels, const uint steps)
{
    const uint c = get_global_id(0);
    if (c >= channels)
        return;
    float h[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (uint t = 0; t < steps; ++t) {
        #pragma unroll
        for (int k = 7; k > 0; --k)
            h[k] = h[k - 1];
        h[0] = x[t * channels + c];
        float s = 0.0f;
        #pragma unroll
        for (int k = 0; k < 8; ++k)
            s += coef[k] * h[k];
        y[t * channels + c] = s;
    }
}
