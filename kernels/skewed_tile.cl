// Exercise skewed_tile: out = in + in transposed, through a tile in local memory.
//
// in and out are row-major n x n: out[y * n + x] = in[y * n + x] + in[x * n + y]. The range is
// 2-D (dimension 0 = column x), the work-groups T x T (T a power of two), the global size may
// exceed n. Each work-group loads the MIRRORED block of in (the rows where its columns are, the
// columns where its rows are) into the tile, row by row so that neighbouring work-items read
// neighbouring floats of in; after the barrier, work-item (lx, ly) reads row lx, column ly of
// the tile: down a column.
//
// The kernel below is correct, but the lanes of a warp read floats T apart, which lie in the
// same bank of local memory (a bank conflict: with T = 32, the 32 reads are served one after
// the other). `tile` holds exactly T * T floats, no room to pad its rows: skew them instead,
// element (r, c) of the tile at tile[r * T + (c + r) % T], in the store and in the read. The
// check judges the reads of the tile on the warp model, and that global memory is read and
// written coalesced.
//
// Check it from the notebook with check("skewed_tile"), or from a shell:
//     python -m helpers check skewed_tile

__kernel void skewed_tile(__global const float *in,
                          __global float *out,
                          const uint n,
                          __local float *tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint x = get_global_id(0), y = get_global_id(1);
    // the mirrored block: rows from get_group_id(0) * T, columns from get_group_id(1) * T
    const uint row = get_group_id(0) * T + ly, col = get_group_id(1) * T + lx;
    if (row < n && col < n)
        tile[ly * T + lx] = in[row * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < n && y < n)
        out[y * n + x] = in[y * n + x] + tile[lx * T + ly];
}
