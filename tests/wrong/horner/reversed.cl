// WRONG: Horner's rule started from coef[0]: the learner read the nesting left to right, so
// coef[0] ends up multiplied by x^degree and coef[degree] is the constant term.
__kernel void horner(__global const float *x, __global float *y, __constant float *coef,
                     const uint degree, const uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    float acc = coef[0];
    for (uint k = 1; k <= degree; ++k)
        acc = acc * x[i] + coef[k];
    y[i] = acc;
}
