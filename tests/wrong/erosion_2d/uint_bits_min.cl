/* WRONG: the minimum is taken over the floats' bit patterns read as uints, which orders every negative float above every non-negative one.
 * Mistake: "integer min is faster": best = min(best, as_uint(v)) starting from as_uint(INFINITY). For
 *   non-negative floats the uint order equals the float order, but a negative float has its sign bit
 *   set, so as a uint it is larger than as_uint(INFINITY) and is never chosen. Indexing, clipping and
 *   guards are right.
 * Shows: only for inputs with negative values: every pixel whose window holds a negative value gets the
 *   smallest non-negative value of its window instead (or INFINITY if all are negative). With inputs
 *   all >= 0 (e.g. random data drawn from [0, 1)) every launch is right.
 * A good checker's first sentence: "wrong where the window holds negative values: comparing floats as
 *   uint bit patterns puts negative numbers above positive ones; use fmin (or min) on the floats."
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

    uint best = as_uint(INFINITY);
    for (uint yy = y0; yy <= y1; ++yy)
        for (uint xx = x0; xx <= x1; ++xx)
            best = min(best, as_uint(in[yy * width + xx]));
    out[y * width + x] = as_float(best);
}
