// Writes into its input (const dropped from src).
__kernel void float_copy(__global float *src, __global float *dst, const uint n)
{
    uint i = get_global_id(0);
    if (i < n) {
        dst[i] = src[i];
        src[i] = 0.0f;
    }
}
