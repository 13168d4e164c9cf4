// WRONG: one float per work-item, as in saxpy_guard: with a quarter of the work-items, three
// quarters of y are never updated.
__kernel void saxpy4(__global const float *x, __global float *y, const float a, const uint n)
{
    uint i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
