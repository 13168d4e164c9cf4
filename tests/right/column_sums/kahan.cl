// RIGHT: each work-item walks down its column with Kahan's compensated summation, more accurate than a plain float sum; the guard comes first.
__kernel void column_sums(__global const float *m,
                          __global float *sums,
                          const uint width,
                          const uint height)
{
    const uint j = get_global_id(0);
    if (j >= width)
        return;
    float s = 0.0f, comp = 0.0f;
    for (uint i = 0; i < height; ++i) {
        const float v = m[i * width + j] - comp;
        const float t = s + v;
        comp = (t - s) - v;
        s = t;
    }
    sums[j] = s;
}
