// WRONG: one work-item per row, summing the row: the learner mixed up rows and columns (and
// stores only where there is a row, so the sums past the last row are never written).
__kernel void column_sums(__global const float *m, __global float *sums, const uint width,
                          const uint height)
{
    const uint r = get_global_id(0);
    if (r >= height || r >= width)
        return;
    float s = 0.0f;
    for (uint c = 0; c < width; ++c)
        s += m[r * width + c];
    sums[r] = s;
}
