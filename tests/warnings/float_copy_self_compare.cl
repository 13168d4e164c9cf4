// A correct copy with a line the compiler warns about: the check passes and shows the warning.
__kernel void float_copy(__global const float *src, __global float *dst, const uint n)
{
    uint i = get_global_id(0);
    if (i == i && i < n)
        dst[i] = src[i];
}
