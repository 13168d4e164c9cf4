/* WRONG: pixels are addressed as y * height + x, but the row stride of a row-major image width pixels wide is width.
 * Mistake: both the reads `in[yy * height + xx]` and the store `out[y * height + x]` use height as the
 *   row stride. The window clipping and the guard are right.
 * Shows: whenever width != height. With height > width the indices run past width*height (out-of-bounds
 *   reads and writes in the last rows); with height < width rows overlap, so results land on the
 *   wrong pixels and part of out is never written. Square images (any size, any launch) are right.
 * A good checker's first sentence: "the result is wrong for non-square images (width != height): pixel
 *   (x, y) of a row-major image is at y * width + x, not y * height + x."
 */
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

    const uint x0 = (x > radius) ? x - radius : 0;
    const uint y0 = (y > radius) ? y - radius : 0;
    const uint x1 = min(x + radius, width - 1);
    const uint y1 = min(y + radius, height - 1);

    float m = INFINITY;
    for (uint yy = y0; yy <= y1; ++yy)
        for (uint xx = x0; xx <= x1; ++xx)
            m = fmin(m, in[yy * height + xx]);
    out[y * height + x] = m;
}
