/* WRONG: the work-group reduces each chunk of local-size columns separately, inside the column loop, whose trip count differs between work-items when width is not a multiple of the local size.
 * Mistake: the loop `for (x = lid; x < width; x += lsize)` contains barriers (store, tree, accumulate).
 *   Work-item lid runs ceil((width - lid) / lsize) iterations, so when width mod lsize != 0 the
 *   work-items lid >= width mod lsize make one iteration fewer and skip the last chunk's barriers
 *   (barrier divergence); where the device carries on anyway, their slots of partial hold the previous
 *   chunk's products (or were never written, when width < lsize), which are added in a second time.
 * Shows: only when width is not a multiple of the local size (including width < local size). When
 *   the local size divides width every work-item makes the same number of iterations and the result
 *   is right (for any height and number of work-groups).
 * A good checker's first sentence: "the barriers are inside a loop whose number of iterations depends
 *   on the work-item (x = lid; x < width): when width (<W>) is not a multiple of the work-group size
 *   (<L>) some work-items skip them; sum in a private variable first, then reduce once per row."
 */
__kernel void mat_vec_mul(__global const float *m,
                          __global const float *v,
                          const uint width,
                          const uint height,
                          __global float *w,
                          __local float *partial)
{
    const uint lid = get_local_id(0);
    const uint lsize = get_local_size(0);

    for (uint y = get_group_id(0); y < height; y += get_num_groups(0)) {
        float total = 0.0f;                     /* meaningful in work-item 0 */
        for (uint x = lid; x < width; x += lsize) {
            partial[lid] = m[y * width + x] * v[x];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint s = lsize / 2; s > 0; s >>= 1) {
                if (lid < s)
                    partial[lid] += partial[lid + s];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (lid == 0)
                total += partial[0];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            w[y] = total;
    }
}
