// WRONG: takes the minimum as (a + b - |a - b|) / 2, which overflows to infinity for values beyond FLT_MAX / 2 or huge values of opposite signs, though the contract allows any finite float.
float min_avg(const float a, const float b)
{
    return 0.5f * (a + b - fabs(a - b));
}

__kernel void erosion_2d(__global const float *in,
                         __global float *out,
                         const uint width,
                         const uint height,
                         const uint radius)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    const uint x0 = max(x, radius) - radius, x1 = min(x + radius, width - 1);
    const uint y0 = max(y, radius) - radius, y1 = min(y + radius, height - 1);
    float m = in[y * width + x];
    for (uint yy = y0; yy <= y1; ++yy)
        for (uint xx = x0; xx <= x1; ++xx)
            m = min_avg(m, in[yy * width + xx]);
    out[y * width + x] = m;
}
