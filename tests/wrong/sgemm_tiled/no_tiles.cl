/* WRONG: the kernel computes c correctly straight from global memory and never uses a_tile or b_tile, which the exercise requires.
 * Mistake: the plain product (each work-item reads a whole row of a and a whole column of b from
 *   global memory); the tiles are ignored. Every value of c is right.
 * Shows: never in the values (any m, n, k, T, global size); only a check that the tiles are used
 *   (static inspection of the source, poisoning the tile arguments, or timing against the tiled
 *   solution) can tell.
 * A good checker's first sentence: "the result is right but a_tile and b_tile are never used: the
 *   exercise is to copy T x T blocks of a and b into them and multiply from local memory."
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
    const uint col = get_global_id(0), row = get_global_id(1);
    if (row >= m || col >= n)
        return;

    float acc = 0.0f;
    for (uint j = 0; j < k; ++j)
        acc += a[row * k + j] * b[j * n + col];
    c[row * n + col] = acc;
}
