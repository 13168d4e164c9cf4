/* WRONG: each work-item contributes only src[get_global_id(0)], so when there are fewer work-items than n the elements past the global size are never added.
 * Mistake: no grid-stride loop: `scratch[lid] = gid < n ? src[gid] : 0` assumes one work-item per
 *   element. The guard, the tree, the barriers and the store are right.
 * Shows: only when the global size is smaller than n: the sum of the partials misses
 *   src[global size .. n). With global size >= n (any work-group size) it is right.
 * A good checker's first sentence: "with fewer work-items (<G>) than elements (<n>), src[<G>] and later
 *   were never added: each work-item must add up src[i] for i = its global id, + global size, ... < n."
 */
__kernel void parallel_sum(__global const int *src,
                           __global int *partial,
                           const uint n,
                           __local int *scratch)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);

    scratch[lid] = (gid < n) ? src[gid] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
