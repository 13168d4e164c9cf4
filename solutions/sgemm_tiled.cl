// Solution of sgemm_tiled: c = a . b through T x T tiles of a and b in local memory, so that each
// value read from global memory serves T multiply-adds instead of one.

__kernel void sgemm_tiled(__global const float *a,
                          __global const float *b,
                          __global float *c,
                          const uint m,
                          const uint n,
                          const uint k,
                          __local float *a_tile,
                          __local float *b_tile)
{
    const uint t = get_local_size(0);            // the tiles are t x t (get_local_size(1) == t)
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint col = get_global_id(0), row = get_global_id(1);

    float sum = 0.0f;
    // One step per t-wide slice of k; the last slice may stick out of the matrices (k % t != 0).
    for (uint k0 = 0; k0 < k; k0 += t) {
        // Work-item (lx, ly) copies a[row][k0 + lx] and b[k0 + ly][col]: neighbours read
        // neighbours. Outside a matrix it writes zero, which adds nothing to the sums.
        a_tile[ly * t + lx] = (row < m && k0 + lx < k) ? a[row * k + k0 + lx] : 0.0f;
        b_tile[ly * t + lx] = (k0 + ly < k && col < n) ? b[(k0 + ly) * n + col] : 0.0f;
        // Everyone reads values that others copied: wait until the tiles are full. Work-items
        // outside c have come along (no early return), so every work-item reaches this barrier.
        barrier(CLK_LOCAL_MEM_FENCE);

        for (uint j = 0; j < t; j++)
            sum += a_tile[ly * t + j] * b_tile[j * t + lx];   // row ly of a's tile, column lx of b's

        // Wait until everyone has finished with the tiles before the next step overwrites them.
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < m && col < n)
        c[row * n + col] = sum;
}
