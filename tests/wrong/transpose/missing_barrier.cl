/* WRONG: there is no barrier between filling the tile and reading it transposed, so work-items read slots other work-items have not yet written.
 * Mistake: barrier(CLK_LOCAL_MEM_FENCE) is missing between the two phases. Work-item (lx, ly) reads
 *   tile slot (ly, lx), written by work-item (ly, lx): a data race for every lx != ly. Indices and
 *   guards are right.
 * Shows: whenever T >= 2 (in any matrix with at least one block); the values are wrong on devices that
 *   do not happen to finish the writes first: a CPU device running a group's work-items one after
 *   another (PoCL) reads unwritten slots for nearly all of them; a GPU may look right when a
 *   block fits in one warp (T = 2, 4) and fail at T = 16 or 32. Oclgrind reports the race. T = 1 is right.
 * A good checker's first sentence: "work-items read tile slots written by other work-items without a
 *   barrier in between (a race): add barrier(CLK_LOCAL_MEM_FENCE) after filling the tile."
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

    const uint ox = by + lx, oy = bx + ly;
    if (ox < height && oy < width)
        out[oy * height + ox] = tile[lx * (T + 1) + ly];
}
