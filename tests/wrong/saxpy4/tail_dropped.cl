// WRONG: only whole float4s are done; the last n % 4 floats are never updated.
__kernel void saxpy4(__global const float *x, __global float *y, const float a, const uint n)
{
    uint i = get_global_id(0);
    if (4 * i + 3 < n)
        vstore4(a * vload4(i, x) + vload4(i, y), i, y);
}
