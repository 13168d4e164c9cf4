// WRONG: off by one: the loop starts at coef[degree - 1] from 0 (counting degree coefficients,
// not degree + 1), so the highest term is missing.
__kernel void horner(__global const float *x, __global float *y, __constant float *coef,
                     const uint degree, const uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    float acc = 0.0f;
    for (uint k = 1; k <= degree; ++k)
        acc = acc * x[i] + coef[degree - k];
    y[i] = acc;
}
