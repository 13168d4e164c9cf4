// WRONG: sums four rows a step, then a tail of two rows and one row, but forgets to advance the row after the two-row tail, so when height % 4 == 3 it adds row height - 3 twice and never row height - 1.
__kernel void column_sums(__global const float *m,
                          __global float *sums,
                          const uint width,
                          const uint height)
{
    const uint j = get_global_id(0);
    if (j >= width)
        return;
    float s = 0.0f;
    uint i = 0;
    for (; i + 4 <= height; i += 4)
        s += m[i * width + j] + m[(i + 1) * width + j] + m[(i + 2) * width + j] + m[(i + 3) * width + j];
    if (height & 2)
        s += m[i * width + j] + m[(i + 1) * width + j];
    if (height & 1)
        s += m[i * width + j];
    sums[j] = s;
}
