// Solution of strided_fix: a grid-stride loop. At step k work-item g touches element
// k * get_global_size(0) + g, so a warp's 32 work-items read 32 neighbouring floats.

__kernel void strided_fix(__global const float *x,
                          __global float *y,
                          const float a,
                          const uint n)
{
    const uint step = get_global_size(0);
    for (uint i = get_global_id(0); i < n; i += step)
        y[i] = a * x[i] + y[i];
}
