// WRONG: copies a float4 per work-item and, at the tail, a float2 or a single float, but never three: when n % 4 == 3 the last element is not copied.
__kernel void float_copy(__global const float *src,
                         __global float *dst,
                         const uint n)
{
    const uint i = get_global_id(0);
    const uint first = 4 * i;
    if (first + 3 < n)
        vstore4(vload4(i, src), i, dst);
    else if (first + 1 < n)
        vstore2(vload2(0, src + first), 0, dst + first);
    else if (first < n)
        dst[first] = src[first];
}
