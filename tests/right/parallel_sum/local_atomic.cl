/* RIGHT: the work-group adds its work-items' sums with atomic_add on scratch[0] instead of a tree.
 * Unusual: no tree at all, and only scratch[0] of the per-work-item scratch is used; atomic_add on a
 *   __local int is core OpenCL C since 1.1.
 * Why correct: work-item 0 sets scratch[0] = 0 before the first barrier; every work-item adds its
 *   grid-stride sum atomically (int addition wraps and is associative, so the order of the atomics
 *   does not matter); after the second barrier all atomics have completed and work-item 0 stores the
 *   total. The contract fixes only partial[group], not how the group adds up; both barriers are
 *   reached by every work-item; works for any local size, power of two or not.
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

    atomic_add(&scratch[0], mine);
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
