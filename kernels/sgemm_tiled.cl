// Exercise sgemm_tiled (notebook 14): the matrix product through tiles in local memory.
//
// a is m x k, b is k x n and c is m x n, each stored row after row. Compute
//
//     c[row * n + col] = sum over j < k of a[row * k + j] * b[j * n + col]
//
// 2-D range: dimension 0 is the column `col` of c, dimension 1 its row `row`. Work-groups are
// square, T x T work-items (T a power of two, T = get_local_size(0)); `a_tile` and `b_tile` each
// hold T * T floats. The global size may be larger than m and n: such work-items compute nothing.
//
// The plain product reads every a and b value from global memory once per work-item that needs it
// (n times for each value of a). Walk along k one T-wide step at a time instead: the work-group
// copies a T x T block of a and one of b into the tiles (each work-item one value of each), waits
// until the whole group has, multiplies from the tiles, and waits again before the next step
// overwrites them. k need not be a multiple of T: the last step's tiles are only partly inside the
// matrices, and the values outside count as zero.
//
// Check it with check("sgemm_tiled").

__kernel void sgemm_tiled(__global const float *a,
                          __global const float *b,
                          __global float *c,
                          const uint m,
                          const uint n,
                          const uint k,
                          __local float *a_tile,
                          __local float *b_tile)
{
    // TODO
}
