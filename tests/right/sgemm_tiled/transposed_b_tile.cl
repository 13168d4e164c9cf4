/* RIGHT: b's block is stored transposed in b_tile (slot [lx][ly]), and the inner product reads both tiles along a row.
 * Unusual: b_tile[lx * T + ly] = b[(t0 + ly) * n + col], then acc += a_tile[ly*T + j] * b_tile[lx*T + j]:
 *   the inner loop walks both tiles with unit stride (for this work-item), at the price of a strided
 *   local store; the loop variable t0 is the first column of a / row of b of the step.
 * Why correct: b_tile[lx*T + j] was written by work-item (lx, ly = j) as b[(t0 + j) * n + col] for this
 *   column col, so the sum over j is sum_j a[row][t0 + j] * b[t0 + j][col], the same terms as the usual
 *   layout; both tiles still hold T*T floats; out-of-matrix slots are 0.0f; all work-items run the
 *   same steps and reach both barriers; only the store is guarded.
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
        a_tile[ly * T + lx] = (row < m && t0 + lx < k) ? a[(size_t)row * k + t0 + lx] : 0.0f;
        b_tile[lx * T + ly] = (t0 + ly < k && col < n) ? b[(size_t)(t0 + ly) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);

        for (uint j = 0; j < T; ++j)
            acc += a_tile[ly * T + j] * b_tile[lx * T + j];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < m && col < n)
        c[(size_t)row * n + col] = acc;
}
