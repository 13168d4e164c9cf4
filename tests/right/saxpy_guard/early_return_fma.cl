// RIGHT: the guard as an early return of the work-items past the data, and the update as one
// fused multiply-add (fma rounds once; within the exercise's tolerance of two roundings).
__kernel void saxpy_guard(__global const float *x, __global float *y, const float a, const uint n)
{
    const size_t i = get_global_id(0);
    if (i >= n)
        return;
    y[i] = fma(a, x[i], y[i]);
}
