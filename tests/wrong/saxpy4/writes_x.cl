// WRONG: stores the result into x (casting away const to silence the compiler) instead of y; y is left unchanged.
__kernel void saxpy4(__global const float *x,
                     __global float *y,
                     const float a,
                     const uint n)
{
    const uint i = get_global_id(0);
    const uint first = 4 * i;
    __global float *out = (__global float *)x;
    if (first + 3 < n) {
        vstore4(a * vload4(i, x) + vload4(i, y), i, out);
    } else {
        for (uint j = first; j < n; j++)
            out[j] = a * x[j] + y[j];
    }
}
