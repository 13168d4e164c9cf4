// WRONG: the guard asks only whether the first of the four floats is below n: the work-item that
// crosses n reads and writes a whole float4, past the end of x and y.
__kernel void saxpy4(__global const float *x, __global float *y, const float a, const uint n)
{
    uint i = get_global_id(0);
    if (4 * i < n)
        vstore4(a * vload4(i, x) + vload4(i, y), i, y);
}
