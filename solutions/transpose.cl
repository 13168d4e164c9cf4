// Solution of transpose: through a T x (T + 1) tile in local memory, so that both the reads of
// `in` and the writes of `out` go to neighbouring addresses from neighbouring work-items.

__kernel void transpose(__global const float *in,
                        __global float *out,
                        const uint width,
                        const uint height,
                        __local float *tile)
{
    const uint t = get_local_size(0);       // the tile is t x t (get_local_size(1) == t)
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint bx = get_group_id(0) * t, by = get_group_id(1) * t;  // the block's corner in `in`

    // Load: work-item (lx, ly) reads in[by + ly][bx + lx], neighbours reading neighbours. The row
    // of the tile is t + 1 floats long, so that the column read below touches t different banks.
    const uint x = bx + lx, y = by + ly;
    if (x < width && y < height)
        tile[ly * (t + 1) + lx] = in[y * width + x];
    // Every work-item reads what another one wrote: all loads come first. Work-items outside
    // the matrix reach the barrier too.
    barrier(CLK_LOCAL_MEM_FENCE);

    // Store: the block lands at row bx, column by of `out`; work-item (lx, ly) now writes
    // out[bx + ly][by + lx], which is in[by + lx][bx + ly], held at tile[lx][ly].
    const uint ox = by + lx, oy = bx + ly;  // column and row of `out` (width x height -> height wide)
    if (ox < height && oy < width)
        out[oy * height + ox] = tile[lx * (t + 1) + ly];
}
