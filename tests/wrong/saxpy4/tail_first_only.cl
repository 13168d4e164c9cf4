// WRONG: the work-item that crosses n updates only the first of its floats below n (an `if` where
// a loop is needed).
__kernel void saxpy4(__global const float *x, __global float *y, const float a, const uint n)
{
    uint i = get_global_id(0);
    if (4 * i + 3 < n)
        vstore4(a * vload4(i, x) + vload4(i, y), i, y);
    else if (4 * i < n)
        y[4 * i] = a * x[4 * i] + y[4 * i];
}
