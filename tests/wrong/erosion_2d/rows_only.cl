// Wrong: the window covers the pixel's row only.
__kernel void erosion_2d(__global const float *in, __global float *out, const uint width,
                         const uint height, const uint radius)
{
    const uint x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    const uint x0 = max(x, radius) - radius, x1 = min(x + radius, width - 1);
    float m = INFINITY;
    for (uint xx = x0; xx <= x1; ++xx)
        m = fmin(m, in[y * width + xx]);
    out[y * width + x] = m;
}
