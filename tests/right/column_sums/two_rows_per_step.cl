// RIGHT: two accumulators, two rows a step (the odd last row on its own), the column pointer
// moved by 2 * width: an unusual loop, still coalesced, every element added once.
__kernel void column_sums(__global const float *m, __global float *sums, const uint width,
                          const uint height)
{
    const uint j = get_global_id(0);
    if (j < width) {
        __global const float *p = m + j;
        float even = 0.0f, odd = 0.0f;
        uint i = 0;
        for (; i + 1 < height; i += 2, p += 2 * width) {
            even += p[0];
            odd += p[width];
        }
        if (i < height)
            even += p[0];
        sums[j] = even + odd;
    }
}
