// Solution of column_sums: work-item j walks down column j. At every row the work-items of a
// warp read neighbouring floats of that row: coalesced.
__kernel void column_sums(__global const float *m,
                          __global float *sums,
                          const uint width,
                          const uint height)
{
    const uint j = get_global_id(0);
    if (j >= width)
        return;
    float s = 0.0f;
    for (uint i = 0; i < height; ++i)
        s += m[i * width + j];
    sums[j] = s;
}
