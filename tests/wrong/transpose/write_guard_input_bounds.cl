/* WRONG: the store to out is guarded with the input's bounds (x < width, y < height) instead of the output's (by + lx < height, bx + ly < width).
 * Mistake: in the write phase a work-item stores out[(bx + ly) * height + (by + lx)], but it checks the
 *   coordinates it used for reading. In a block cut by the edge of the matrix the two checks differ:
 *   some work-items skip outputs they should write, others store tile slots that were never loaded,
 *   at positions past the end of an out row (landing in the next row) or past the end of out.
 * Shows: only in blocks that the matrix edge cuts differently in the two directions, in practice
 *   whenever width or height is not a multiple of T and the matrix spans more than one block (e.g.
 *   width 20, height 16, T 16: block (1, 0) writes out rows 20 .. 31, past the end of out). When both
 *   width and height are multiples of T it is right, whatever the global size; a square matrix
 *   smaller than one block is also right (the cut is symmetric).
 * A good checker's first sentence: "out-of-bounds writes to out (and missing outputs) in the edge
 *   blocks: the store must check the output coordinates (by + lx < height, bx + ly < width), not the
 *   input's."
 */
__kernel void transpose(__global const float *in,
                        __global float *out,
                        const uint width,
                        const uint height,
                        __local float *tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0);
    const uint ly = get_local_id(1);
    const uint bx = get_group_id(0) * T;
    const uint by = get_group_id(1) * T;

    const uint x = bx + lx, y = by + ly;
    if (x < width && y < height)
        tile[ly * (T + 1) + lx] = in[y * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);

    if (x < width && y < height)
        out[(bx + ly) * height + (by + lx)] = tile[lx * (T + 1) + ly];
}
