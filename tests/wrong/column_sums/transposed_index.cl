// WRONG: the index written the other way round, m[j * height + i]: as if the matrix were stored
// column by column. Each "column" is then a run of height neighbouring floats.
__kernel void column_sums(__global const float *m, __global float *sums, const uint width,
                          const uint height)
{
    const uint j = get_global_id(0);
    if (j >= width)
        return;
    float s = 0.0f;
    for (uint i = 0; i < height; ++i)
        s += m[j * height + i];
    sums[j] = s;
}
