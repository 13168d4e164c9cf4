/* RIGHT: each work-item copies four consecutive floats with vload4/vstore4, and a quad cut by n element by element.
 * Unusual: work-item q handles elements 4q .. 4q+3, so only the first ceil(n/4) work-items do anything
 *   and the others (the launch has at least n) stay idle.
 * Why correct: vload4/vstore4 need only float alignment (they address p + 4*offset), a full quad is
 *   used only when 4q + 4 <= n, and the quad that crosses n is copied by a scalar loop that stops at n;
 *   so every i < n is copied exactly once and nothing at or past n is read or written, for any n
 *   (including n < 4 and n = 0), any global size >= ceil(n/4) and any work-group size.
 */
__kernel void float_copy(__global const float *src,
                         __global float *dst,
                         const uint n)
{
    const size_t q = get_global_id(0);
    const size_t first = 4 * q;

    if (first + 4 <= (size_t)n) {
        vstore4(vload4(q, src), q, dst);
    } else if (first < (size_t)n) {
        for (size_t i = first; i < (size_t)n; ++i)
            dst[i] = src[i];
    }
}
