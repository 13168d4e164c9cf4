// Writes far past the end, 4096 times per work-item: a device may crash or not, and Oclgrind
// finds an invalid write at every iteration of every work-item.
__kernel void float_copy(__global const float *src, __global float *dst, const uint n)
{
    uint i = get_global_id(0);
    for (uint k = 0; k < 4096u; ++k)
        dst[i + k * n] = src[i];
}
