/* WRONG: work-items outside c return at the start, so in the edge work-groups they skip the barriers and leave their tile slots unloaded although their neighbours need them.
 * Mistake: `if (row >= m || col >= n) return;` before the loop. Work-item (lx, ly) loads a_tile[ly][lx]
 *   (a value of row `row`) and b_tile[ly][lx] (a value of column `col`): if it returned because
 *   col >= n, its a value is missing for the work-items of its row that do compute; if because
 *   row >= m, its b value is missing for its column. Besides, barrier divergence.
 * Shows: only in work-groups that straddle the edge of c, i.e. when m or n is not a multiple of T and
 *   there is at least one work-item inside that group's valid part: wrong values in those groups'
 *   outputs (from unloaded slots), hangs on some GPUs, a barrier-divergence error in Oclgrind. Groups
 *   wholly outside c return as a whole, which is legal; if T divides both m and n it is right.
 * A good checker's first sentence: "work-items outside c return before the barriers, so their
 *   work-group's barriers are not reached by all (barrier divergence) and their tile slots are never
 *   loaded; let them load zeros and take part, and guard only the store to c."
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
    if (row >= m || col >= n)
        return;                                   /* no element of c here */

    float acc = 0.0f;
    for (uint t0 = 0; t0 < k; t0 += T) {
        a_tile[ly * T + lx] = (t0 + lx < k) ? a[row * k + t0 + lx] : 0.0f;
        b_tile[ly * T + lx] = (t0 + ly < k) ? b[(t0 + ly) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);

        for (uint j = 0; j < T; ++j)
            acc += a_tile[ly * T + j] * b_tile[j * T + lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}
