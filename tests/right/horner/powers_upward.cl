// RIGHT: not Horner at all: the terms summed upward, the power of x kept in a variable and
// multiplied by x at every step (twice the multiplications; within float32 rounding all the
// same for |x| <= 1). A signed loop counter.
__kernel void horner(__global const float *x, __global float *y, __constant float *coef,
                     const uint degree, const uint n)
{
    const int i = get_global_id(0);
    if (i < (int)n) {
        float power = 1.0f, sum = 0.0f;
        for (int k = 0; k <= (int)degree; ++k) {
            sum += coef[k] * power;
            power *= x[i];
        }
        y[i] = sum;
    }
}
