// Wrong: pixels near the edge are skipped instead of clipping their windows.
__kernel void erosion_2d(__global const float *in, __global float *out, const uint width,
                         const uint height, const uint radius)
{
    const uint x = get_global_id(0), y = get_global_id(1);
    if (x < radius || y < radius || x + radius >= width || y + radius >= height)
        return;
    float m = INFINITY;
    for (uint yy = y - radius; yy <= y + radius; ++yy)
        for (uint xx = x - radius; xx <= x + radius; ++xx)
            m = fmin(m, in[yy * width + xx]);
    out[y * width + x] = m;
}
