/* RIGHT: the tree lives in a helper function that contains the barriers, called by every work-item, which all read the result.
 * Unusual: barriers inside a non-kernel function; the grid-stride loop is a while loop over size_t;
 *   every work-item (not only work-item 0) reads scratch[0] after the last barrier, and work-item 0
 *   stores it.
 * Why correct: the helper is called unconditionally by all work-items of the group, so each barrier in
 *   it is reached by all of them the same number of times (the halving loop's trip count depends only
 *   on the local size); the sequential-addressing tree is right for the power-of-two local sizes of
 *   the contract; nothing writes scratch after the last barrier, so the concurrent reads of scratch[0]
 *   are not a race.
 */
int group_sum(__local int *scratch, const int mine)
{
    const uint lid = get_local_id(0);
    scratch[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = get_local_size(0) / 2; step > 0; step /= 2) {
        if (lid < step)
            scratch[lid] += scratch[lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return scratch[0];
}

__kernel void parallel_sum(__global const int *src,
                           __global int *partial,
                           const uint n,
                           __local int *scratch)
{
    const size_t stride = get_global_size(0);
    size_t i = get_global_id(0);
    int mine = 0;
    while (i < (size_t)n) {
        mine += src[i];
        i += stride;
    }

    const int total = group_sum(scratch, mine);
    if (get_local_id(0) == 0)
        partial[get_group_id(0)] = total;
}
