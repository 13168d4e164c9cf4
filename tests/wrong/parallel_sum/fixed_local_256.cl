/* WRONG: a fixed __local int buf[256] is used instead of the scratch argument, so work-groups larger than 256 write past its end.
 * Mistake: the kernel declares its own `__local int buf[256]` and ignores scratch; with local size L,
 *   work-items lid >= 256 store buf[lid] out of bounds and the tree reads buf[lid + s] beyond it.
 * Shows: only with work-groups larger than 256 (512, 1024, ...): out-of-bounds local writes and reads,
 *   wrong partials or a crash, depending on the device (Oclgrind reports the invalid local access).
 *   With local size <= 256 it is right for any n and global size.
 * A good checker's first sentence: "with work-groups of <L> work-items the kernel writes past the end of
 *   its own __local int buf[256]: use the scratch argument, which the host sizes to the work-group."
 */
#define BUF 256

__kernel void parallel_sum(__global const int *src,
                           __global int *partial,
                           const uint n,
                           __local int *scratch)
{
    __local int buf[BUF];
    const uint lid = get_local_id(0);

    int mine = 0;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        mine += src[i];
    buf[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            buf[lid] += buf[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = buf[0];
}
