/* RIGHT: the tiled product with index macros, size_t addressing, restrict pointers and a step count computed up front.
 * Unusual: #define helpers A_AT/B_AT/TILE for the indexing, `restrict` on a, b and c (three distinct
 *   buffers, so no aliasing), the number of steps ceil(k / T) computed once, and block origins taken
 *   from get_group_id * T rather than get_global_id.
 * Why correct: every work-item, inside c or not, runs the same ceil(k/T) steps and reaches both
 *   barriers of each; each step it loads one value of a and one of b, 0.0f outside the matrices, so
 *   the last step's tail (k not a multiple of T) and edge blocks (m, n not multiples of T) add zero;
 *   the second barrier keeps the next step's stores after everyone's reads; only the store to c is
 *   guarded; k = 0 gives c = 0.
 */
#define A_AT(r, j)  a[(size_t)(r) * k + (j)]
#define B_AT(j, col) b[(size_t)(j) * n + (col)]
#define TILE(t, r, j) t[(r) * T + (j)]

__kernel void sgemm_tiled(__global const float *restrict a,
                          __global const float *restrict b,
                          __global float *restrict c,
                          const uint m,
                          const uint n,
                          const uint k,
                          __local float *a_tile,
                          __local float *b_tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint col = get_group_id(0) * T + lx;
    const uint row = get_group_id(1) * T + ly;
    const uint steps = (k + T - 1) / T;

    float acc = 0.0f;
    for (uint s = 0; s < steps; ++s) {
        const uint ja = s * T + lx;          /* column of a this work-item loads */
        const uint jb = s * T + ly;          /* row of b this work-item loads */
        TILE(a_tile, ly, lx) = (row < m && ja < k) ? A_AT(row, ja) : 0.0f;
        TILE(b_tile, ly, lx) = (jb < k && col < n) ? B_AT(jb, col) : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);

        for (uint j = 0; j < T; ++j)
            acc += TILE(a_tile, ly, j) * TILE(b_tile, j, lx);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < m && col < n)
        c[(size_t)row * n + col] = acc;
}
