// A write far outside the buffer: the process dies.
__kernel void float_copy(__global const float *src, __global float *dst, const uint n)
{
    uint i = get_global_id(0);
    dst[i + 0x40000000u] = src[i];
}
