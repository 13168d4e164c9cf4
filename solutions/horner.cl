// Solution of horner: Horner's rule from the highest coefficient down, one fused multiply-add
// per coefficient. The loop counts k up and reads coef[degree - k]: a uint counting down to 0
// would wrap around and never end.
__kernel void horner(__global const float *x,
                     __global float *y,
                     __constant float *coef,
                     const uint degree,
                     const uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float v = x[i];
    float acc = coef[degree];
    for (uint k = 1; k <= degree; ++k)
        acc = fma(acc, v, coef[degree - k]);
    y[i] = acc;
}
