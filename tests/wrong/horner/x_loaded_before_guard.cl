// WRONG: loads x[i] and runs Horner's rule before the guard, storing only for i < n, so the work-items past n read x past its end.
__kernel void horner(__global const float *x,
                     __global float *y,
                     __constant float *coef,
                     const uint degree,
                     const uint n)
{
    const uint i = get_global_id(0);
    const float v = x[i];
    float acc = coef[degree];
    for (uint k = 1; k <= degree; ++k)
        acc = fma(acc, v, coef[degree - k]);
    if (i < n)
        y[i] = acc;
}
