// RIGHT: the float4s through a float4 pointer (a buffer and 4i floats into it are 16-byte
// aligned), and the tail through a switch on how many floats are left, falling through.
__kernel void saxpy4(__global const float *x, __global float *y, const float a, const uint n)
{
    size_t i = get_global_id(0);
    size_t left = n > 4 * i ? n - 4 * i : 0;
    if (left >= 4) {
        __global float4 *y4 = (__global float4 *)y;
        y4[i] = a * ((__global const float4 *)x)[i] + y4[i];
        return;
    }
    switch (left) {
    case 3: y[4 * i + 2] = a * x[4 * i + 2] + y[4 * i + 2];
    case 2: y[4 * i + 1] = a * x[4 * i + 1] + y[4 * i + 1];
    case 1: y[4 * i] = a * x[4 * i] + y[4 * i];
    default: break;
    }
}
