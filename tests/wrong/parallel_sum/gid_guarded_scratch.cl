// WRONG: scratch[lid] is written only by work-items inside the data, then the whole tree is reduced:
// when the range exceeds n, the tree adds slots nobody wrote (an int4 accumulator stops Oclgrind's
// uninitialized-value plugin).
__kernel void parallel_sum(__global const int *src, __global int *partial, const uint n,
                           __local int *scratch)
{
    const uint gid = get_global_id(0), lid = get_local_id(0);
    int4 acc = (int4)(0);
    for (uint i = gid; i < n; i += get_global_size(0))
        acc.x += src[i];
    if (gid < n)
        scratch[lid] = acc.x + acc.y + acc.z + acc.w;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
