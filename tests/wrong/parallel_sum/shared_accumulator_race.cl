/* WRONG: every work-item adds its sum into scratch[0] with a plain +=, a data race in which concurrent updates are lost.
 * Mistake: `scratch[0] += mine;` by all work-items between two barriers, without an atomic: the
 *   read-modify-writes of different work-items interleave. The grid-stride loop, the initialisation
 *   of scratch[0] and the barriers are right.
 * Shows: with local size >= 2, wherever work-items really run concurrently: on a GPU nearly every launch
 *   loses updates (typically a partial equals one work-item's or one warp's contribution); a CPU device
 *   that runs the work-items of a group strictly one after another between barriers may return the
 *   right sums, so it can pass there; Oclgrind's race detection reports it. Local size 1 is right.
 * A good checker's first sentence: "work-items of a work-group update scratch[0] at the same time with
 *   a plain += (a data race; updates are lost): use atomic_add, or a tree over scratch[lid]."
 */
__kernel void parallel_sum(__global const int *src,
                           __global int *partial,
                           const uint n,
                           __local int *scratch)
{
    const uint lid = get_local_id(0);

    int mine = 0;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        mine += src[i];

    if (lid == 0)
        scratch[0] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    scratch[0] += mine;
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
