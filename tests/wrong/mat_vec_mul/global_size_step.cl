/* WRONG: the row loop steps by get_global_size(0) (work-items) instead of get_num_groups(0) (work-groups), so rows are skipped when there are fewer work-groups than rows.
 * Mistake: `y += get_global_size(0)`. Group g handles rows g, g + G, g + 2G, ... with G = groups *
 *   local size, so rows y with (y mod G) >= number of groups are never computed. The dot product,
 *   the tree and the barriers are right.
 * Shows: only when the number of work-groups is smaller than height and the local size is > 1 (then
 *   w[groups .. min(height, G)) and more are never written). With at least as many work-groups as
 *   rows (each group does at most one row) or with local size 1 (G = groups) it is right.
 * A good checker's first sentence: "rows from <number of groups> on were never computed: the loop over
 *   rows must step by get_num_groups(0), the number of work-groups, not get_global_size(0)."
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

    for (uint y = get_group_id(0); y < height; y += get_global_size(0)) {
        float sum = 0.0f;
        for (uint x = lid; x < width; x += lsize)
            sum += m[y * width + x] * v[x];
        partial[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);

        for (uint s = lsize / 2; s > 0; s >>= 1) {
            if (lid < s)
                partial[lid] += partial[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            w[y] = partial[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
