// WRONG: the guard compares with the global size, which every work-item is below: it guards
// nothing, and the work-items past n still read and write past the end of x and y.
__kernel void saxpy_guard(__global const float *x, __global float *y, const float a, const uint n)
{
    const uint i = get_global_id(0);
    if (i < get_global_size(0))
        y[i] = a * x[i] + y[i];
}
