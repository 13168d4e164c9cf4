// Solution of saxpy_guard: the update, guarded by the number of elements.
__kernel void saxpy_guard(__global const float *x,
                          __global float *y,
                          const float a,
                          const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
