// RIGHT: starts the minimum from FLT_MAX, a large constant but the largest finite float, so for finite inputs (the window never empty) the result equals the one from INFINITY.
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
    float m = FLT_MAX;
    for (uint yy = y0; yy <= y1; ++yy)
        for (uint xx = x0; xx <= x1; ++xx)
            m = fmin(m, in[yy * width + xx]);
    out[y * width + x] = m;
}
