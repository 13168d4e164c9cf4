/* WRONG: tile slots outside the matrices are skipped instead of set to zero, so in the last step along k they keep stale values that enter the sum.
 * Mistake: `if (inside) a_tile[...] = a[...];` with no else (same for b_tile). In a step where
 *   t0 + T > k, the slots j >= k - t0 of a row of a_tile and of a column of b_tile keep the previous
 *   step's values (or uninitialised memory when k < T), and acc adds their products. Slots outside m or
 *   n also go stale, but only work-items that store nothing read them.
 * Shows: only when k is not a multiple of T: with k > T the stale products come from the previous step
 *   and the result is clearly wrong; with k < T the slots are uninitialised and the result depends on
 *   what the device leaves in local memory (a device that zeroes it would pass; Oclgrind reports the
 *   uninitialised reads). When T divides k it is right for any m, n and global size.
 * A good checker's first sentence: "c is wrong when k (<k>) is not a multiple of the tile size (<T>):
 *   in the last step the tile slots past k are not set to zero and keep old values; store 0.0f there."
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
        if (row < m && t0 + lx < k)
            a_tile[ly * T + lx] = a[row * k + t0 + lx];
        if (t0 + ly < k && col < n)
            b_tile[ly * T + lx] = b[(t0 + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);

        for (uint j = 0; j < T; ++j)
            acc += a_tile[ly * T + j] * b_tile[j * T + lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < m && col < n)
        c[row * n + col] = acc;
}
