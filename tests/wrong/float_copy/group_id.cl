// Wrong id function: the number of the work-group.
__kernel void float_copy(__global const float *src, __global float *dst, const uint n)
{
    uint i = get_group_id(0);
    if (i < n)
        dst[i] = src[i];
}
