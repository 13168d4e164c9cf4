// RIGHT: second-order Horner: the even and the odd coefficients each by Horner's rule in x * x, combined as even + x * odd (two independent chains).
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
    const float v2 = v * v;
    const uint top_even = degree & ~1u;             // highest even index <= degree
    float even = coef[top_even];
    for (uint k = top_even; k >= 2; k -= 2)
        even = fma(even, v2, coef[k - 2]);
    float odd = 0.0f;
    if (degree >= 1) {
        const uint top_odd = (degree & 1u) ? degree : degree - 1;
        odd = coef[top_odd];
        for (uint k = top_odd; k >= 3; k -= 2)
            odd = fma(odd, v2, coef[k - 2]);
    }
    y[i] = fma(odd, v, even);
}
