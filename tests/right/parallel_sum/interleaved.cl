/* RIGHT: the tree uses interleaved addressing, `if (lid % (2*s) == 0) scratch[lid] += scratch[lid + s]` with s = 1, 2, 4, ..., a barrier after every step.
 * Unusual: the textbook's first (slow) tree: the active work-items are spread out instead of packed in
 *   the lower half. DESIGN.md records that PoCL 3.x returns wrong sums for exactly this correct kernel
 *   while Oclgrind runs it correctly, so a checker running on PoCL should not blame the learner.
 * Why correct: for a power-of-two local size L (the contract's), a work-item with lid a multiple of 2s
 *   has lid + s < L, and after the step of size s, slot lid (a multiple of 2s) holds the sum of slots
 *   [lid, lid + 2s); after the step L/2 slot 0 holds the group's sum. The barrier is outside the if,
 *   at the end of each step, so every work-item reaches it the same number of times; the grid-stride
 *   loop adds every element once, whatever the global size.
 */
__kernel void parallel_sum(__global const int *src,
                           __global int *partial,
                           const uint n,
                           __local int *scratch)
{
    const uint lid = get_local_id(0);
    const uint lsize = get_local_size(0);

    int mine = 0;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        mine += src[i];
    scratch[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = 1; s < lsize; s <<= 1) {
        if (lid % (2 * s) == 0)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
