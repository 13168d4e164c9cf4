// WRONG: every work-item sums its column before checking j < width, so a work-item past the last column reads m[(height - 1) * width + j] past the end of m (its sum is thrown away).
__kernel void column_sums(__global const float *m,
                          __global float *sums,
                          const uint width,
                          const uint height)
{
    const uint j = get_global_id(0);
    float s = 0.0f;
    for (uint i = 0; i < height; ++i)
        s += m[i * width + j];
    if (j < width)
        sums[j] = s;
}
