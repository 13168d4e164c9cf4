// An endless loop: k never reaches n + 1.
__kernel void float_copy(__global const float *src, __global float *dst, const uint n)
{
    uint i = get_global_id(0);
    uint k = i;
    while (k < n + 1)
        k = (k * 7u) % (n + 1u);
    if (i < n)
        dst[i] = src[i];
}
