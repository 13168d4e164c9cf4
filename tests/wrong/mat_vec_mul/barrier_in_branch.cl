/* WRONG: the barrier of the reduction tree sits inside `if (lid < s)`, so the work-items of the upper half never reach it.
 * Mistake: in each tree step the barrier is inside the branch that only work-items lid < s take:
 *   barrier divergence, undefined behaviour. Everything else (row loop, dot product, first barrier,
 *   store) is right.
 * Shows: in every launch with local size >= 2 and height > 0. What one sees depends on the device: a
 *   hang or a crash on some GPUs, plausible or wrong sums on others (work-items of a warp that skip
 *   the barrier can run ahead into the next row and overwrite partial), a barrier-divergence error in
 *   Oclgrind. Local size 1 (no tree step) is right.
 * A good checker's first sentence: "barrier() is inside `if (lid < s)`, so not every work-item of the
 *   work-group reaches it (barrier divergence): move the barrier out of the if, to the end of the step."
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
        float sum = 0.0f;
        for (uint x = lid; x < width; x += lsize)
            sum += m[y * width + x] * v[x];
        partial[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);

        for (uint s = lsize / 2; s > 0; s >>= 1) {
            if (lid < s) {
                partial[lid] += partial[lid + s];
                barrier(CLK_LOCAL_MEM_FENCE);   /* only the work-items still adding wait here */
            }
        }
        if (lid == 0)
            w[y] = partial[0];
    }
}
