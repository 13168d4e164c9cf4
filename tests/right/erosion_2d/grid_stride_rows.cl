/* RIGHT: each work-item walks a 2-D grid-stride loop over pixels and takes each window row by row through a row pointer, with overflow-free clipping.
 * Unusual: loops `y += get_global_size(1)`, `x += get_global_size(0)` (under this contract each
 *   work-item meets at most one pixel, but it would also cover a range smaller than the image); the
 *   window's right/bottom edge is clipped as (width - 1 - x > radius) ? x + radius : width - 1, which
 *   cannot overflow even for a huge radius; rows are addressed through a __global pointer row = in + yy*width.
 * Why correct: every pixel (x, y) with x < width, y < height is visited by exactly one work-item; the
 *   window [x0, x1] x [y0, y1] is exactly the (2r+1)^2 square clipped to the image; work-items past the
 *   image do nothing; width or height 0 never evaluates width - 1.
 */
__kernel void erosion_2d(__global const float *in,
                         __global float *out,
                         const uint width,
                         const uint height,
                         const uint radius)
{
    for (uint y = get_global_id(1); y < height; y += get_global_size(1)) {
        const uint y0 = (y > radius) ? y - radius : 0u;
        const uint y1 = (height - 1 - y > radius) ? y + radius : height - 1;

        for (uint x = get_global_id(0); x < width; x += get_global_size(0)) {
            const uint x0 = (x > radius) ? x - radius : 0u;
            const uint x1 = (width - 1 - x > radius) ? x + radius : width - 1;

            float m = INFINITY;
            for (uint yy = y0; yy <= y1; ++yy) {
                __global const float *row = in + (size_t)yy * width;
                for (uint xx = x0; xx <= x1; ++xx)
                    m = fmin(m, row[xx]);
            }
            out[(size_t)y * width + x] = m;
        }
    }
}
