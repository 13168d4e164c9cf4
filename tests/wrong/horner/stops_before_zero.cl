// WRONG: the loop runs while k > 0 so as not to wrap the uint below 0, and so never adds coef[0]
// (nor the last multiplication by x).
__kernel void horner(__global const float *x, __global float *y, __constant float *coef,
                     const uint degree, const uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    float acc = coef[degree];
    for (uint k = degree; k > 1; --k)
        acc = acc * x[i] + coef[k - 1];
    y[i] = acc;
}
