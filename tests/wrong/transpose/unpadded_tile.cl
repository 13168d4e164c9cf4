/* WRONG: the technique is missing: the tile is used with row stride T, without the +1 padding: right values,
 *   but a warp's reads down a column of the tile fall in few banks (8-way conflicts at T = 16), and
 *   the contract asks for conflict-free reads of the tile. Every slot is written (0 outside the matrix).
 * Unusual: only T*T of the T*(T+1) floats are used (the padding that avoids bank conflicts is skipped); out-of-matrix work-items store 0.0f in their slot instead of skipping
 *   it; index helpers are #defines with size_t arithmetic; the write coordinates are named after the
 *   output (orow, ocol).
 * Why correct: a T x T block with stride T fits in the tile the host provides (T*(T+1) floats); every
 *   work-item writes its slot and reaches the single barrier; work-item (lx, ly) then stores
 *   out[orow][ocol] = in[ocol][orow] with orow = bx + ly, ocol = by + lx, read from slot (lx, ly),
 *   which work-item (ly, lx) filled with in[by + lx][bx + ly]; the store is guarded by the output's
 *   bounds, and a slot holding the placeholder 0 is never stored.
 */
#define IN_AT(row, col)  ((size_t)(row) * width + (col))
#define OUT_AT(row, col) ((size_t)(row) * height + (col))

__kernel void transpose(__global const float *in,
                        __global float *out,
                        const uint width,
                        const uint height,
                        __local float *tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0);
    const uint ly = get_local_id(1);
    const uint bx = get_group_id(0) * T;     /* first column of in in this block */
    const uint by = get_group_id(1) * T;     /* first row of in in this block */

    const uint col = bx + lx, row = by + ly;
    tile[ly * T + lx] = (col < width && row < height) ? in[IN_AT(row, col)] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);

    const uint orow = bx + ly;               /* a row of out is a column of in */
    const uint ocol = by + lx;
    if (orow < width && ocol < height)
        out[OUT_AT(orow, ocol)] = tile[lx * T + ly];
}
