/* RIGHT: the tile slots outside the data are filled with 0.0f, but the window is clipped to the data before reading the tile, so those slots are never read.
 * Unusual: no INFINITY sentinel; a placeholder 0.0f (which would be wrong if it were read) fills the
 *   slots outside [0, n), and the window is clipped in global coordinates [max(0, i-r), min(n-1, i+r)]
 *   and translated to tile coordinates g - start + radius.
 * Why correct: all local size + 2*radius slots are written (strided loop, every work-item of the group
 *   takes part and reaches the barrier); the clipped window of element i lies inside
 *   [i - r, i + r], i.e. tile slots [lid, lid + 2r], and holds only in-data slots, which hold in[g];
 *   arithmetic is in signed long so nothing wraps at the borders.
 */
__kernel void erosion_1d_local(__global const float *in,
                               __global float *out,
                               const uint n,
                               const uint radius,
                               __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint lsize = get_local_size(0);
    const long i = (long)get_global_id(0);
    const long r = (long)radius;
    const long start = i - (long)lid;
    const uint len = lsize + 2 * radius;

    for (uint k = lid; k < len; k += lsize) {
        const long g = start - r + (long)k;
        tile[k] = (g >= 0 && g < (long)n) ? in[g] : 0.0f;   /* 0.0f is never read */
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (i < (long)n) {
        const long lo = max(i - r, 0L);
        const long hi = min(i + r, (long)n - 1);
        float m = INFINITY;
        for (long g = lo; g <= hi; ++g)
            m = fmin(m, tile[g - start + r]);
        out[i] = m;
    }
}
