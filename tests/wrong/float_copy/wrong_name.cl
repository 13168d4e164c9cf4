// Wrong function name: the contract says float_copy.
__kernel void floatCopy(__global const float *src, __global float *dst, const uint n)
{
    uint i = get_global_id(0);
    if (i < n)
        dst[i] = src[i];
}
