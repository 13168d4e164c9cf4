/* WRONG: there is no barrier after the multiply-accumulate, so a fast work-item loads the next step's tiles while slower ones still read the current step's.
 * Mistake: the second barrier(CLK_LOCAL_MEM_FENCE) of each step (before the tiles are overwritten) is
 *   missing; the first one, the zero fill and the guards are right.
 * Shows: only when k > T (at least two steps along k): a data race between the next step's stores and
 *   this step's reads; wrong values on a CPU device that runs the work-items one after another between
 *   barriers (PoCL: work-item 0 overwrites a_tile[0] before the others have read it) and on GPUs with
 *   more than one warp per group, while a group that runs in lockstep may look right; Oclgrind reports
 *   the race. With k <= T (a single step) it is right.
 * A good checker's first sentence: "with k (<k>) larger than the tile (<T>), work-items overwrite the
 *   tiles for the next step while others still read them: add a barrier at the end of each step."
 */
__kernel void sgemm_tiled(__global const float *a,
                          __global const float *b,
                          __global float *c,
                          const uint m,
                          const uint n,
                          const uint k,
                          __local float *a_tile,
                          __local float *b_tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint col = get_global_id(0), row = get_global_id(1);

    float acc = 0.0f;
    for (uint t0 = 0; t0 < k; t0 += T) {
        a_tile[ly * T + lx] = (row < m && t0 + lx < k) ? a[row * k + t0 + lx] : 0.0f;
        b_tile[ly * T + lx] = (t0 + ly < k && col < n) ? b[(t0 + ly) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);

        for (uint j = 0; j < T; ++j)
            acc += a_tile[ly * T + j] * b_tile[j * T + lx];
    }
    if (row < m && col < n)
        c[row * n + col] = acc;
}
