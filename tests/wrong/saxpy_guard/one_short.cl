// WRONG: the guard stops one element short (i < n - 1): the last element of y is never updated
// (and with n = 1, n - 1 is 0 and nothing is).
__kernel void saxpy_guard(__global const float *x, __global float *y, const float a, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n - 1)
        y[i] = a * x[i] + y[i];
}
