// Wrong: one element per work-item, although there are fewer work-items than elements.
__kernel void strided_fix(__global const float *x, __global float *y, const float a,
                          const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
