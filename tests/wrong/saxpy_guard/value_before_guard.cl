// WRONG: computes a * x[i] + y[i] into a const before the guard and stores it only for i < n, so the work-items past n still read x[i] and y[i] past the end of both buffers.
__kernel void saxpy_guard(__global const float *x,
                          __global float *y,
                          const float a,
                          const uint n)
{
    const uint i = get_global_id(0);
    const float v = a * x[i] + y[i];
    if (i < n)
        y[i] = v;
}
