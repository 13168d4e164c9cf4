// WRONG: the guard lets one work-item too many through (i <= n): the work-item with index n reads
// x[n] and y[n] and writes y[n], one past the end.
__kernel void saxpy_guard(__global const float *x, __global float *y, const float a, const uint n)
{
    const uint i = get_global_id(0);
    if (i <= n)
        y[i] = a * x[i] + y[i];
}
