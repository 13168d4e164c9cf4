// WRONG: one product per work-item, as if there were as many work-items as elements.
__kernel void dot_partials(__global const float *x, __global const float *y,
                           __global float *partial, const uint n)
{
    const uint g = get_global_id(0);
    if (g < n)
        partial[g] = x[g] * y[g];
}
