/* RIGHT: work-groups take their blocks in diagonal (block-rotated) order, as in the NVIDIA transpose whitepaper, to spread the writes over memory partitions.
 * Unusual: the block a group handles is not (group id 0, group id 1): with gx x gy groups and
 *   bid = gid0 + gx * gid1, the block row is bid % gy and the block column ((bid / gy) + block row) % gx.
 * Why correct: bid -> (bid % gy, bid / gy) is a bijection from [0, gx*gy) onto [0, gy) x [0, gx), and
 *   for each block row the shift (q + row) % gx permutes the block columns, so every block of the
 *   (possibly oversized) grid is handled by exactly one work-group; no group depends on another; inside
 *   a block the tile load, the barrier and the transposed store are the usual ones, with the read
 *   guarded by the input's bounds and the write by the output's, and every work-item reaches the barrier.
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

    const uint gx = get_num_groups(0);
    const uint gy = get_num_groups(1);
    const uint bid = get_group_id(0) + gx * get_group_id(1);
    const uint block_row = bid % gy;
    const uint block_col = (bid / gy + block_row) % gx;

    const uint bx = block_col * T;
    const uint by = block_row * T;

    const uint x = bx + lx, y = by + ly;
    if (x < width && y < height)
        tile[ly * (T + 1) + lx] = in[(size_t)y * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);

    const uint ox = by + lx, oy = bx + ly;
    if (ox < height && oy < width)
        out[(size_t)oy * height + ox] = tile[lx * (T + 1) + ly];
}
