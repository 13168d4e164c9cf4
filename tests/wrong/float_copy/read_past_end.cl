// Reads one element ahead: src[n] is past the end.
__kernel void float_copy(__global const float *src, __global float *dst, const uint n)
{
    uint i = get_global_id(0);
    if (i < n)
        dst[i] = src[i + 1];
}
