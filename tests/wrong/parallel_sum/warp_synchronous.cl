/* WRONG: the last six steps of the tree run without barriers, counting on 32 work-items moving in lockstep (the CUDA "warp-synchronous" trick), which OpenCL does not promise.
 * Mistake: after the barrier loop stops at s = 64, work-items lid < 32 do
 *   vs[lid] += vs[lid + 32]; ... vs[lid] += vs[lid + 1]; through a volatile pointer and no barrier.
 *   Two faults: (a) with local size < 64, vs[lid + 32] (and for local size <= 16 also vs[lid + 16],
 *   ...) lies outside the work-group's slots: past the end of scratch for local size <= 32, adding
 *   whatever is there; (b) even with local size >= 64, work-items are not guaranteed to run in
 *   lockstep: a data race.
 * Shows: (a) in every launch with local size < 64 (wrong partials, out-of-bounds local reads);
 *   (b) local size >= 64: wrong on devices that do not execute 32 work-items in lockstep (CPU devices
 *   such as PoCL, which run the work-items one after another, Intel GPUs with SIMD8/16, NVIDIA Volta and
 *   later), right by luck on some GPUs; Oclgrind reports the race. The grid-stride loop is right.
 * A good checker's first sentence: "the last steps of the tree have no barrier: OpenCL does not run
 *   32 work-items in lockstep (and with a work-group smaller than 64, scratch[lid + 32] is outside
 *   it); keep barrier(CLK_LOCAL_MEM_FENCE) after every step."
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
    scratch[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = get_local_size(0) / 2; s > 32; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (lid < 32) {                       /* one warp: no barrier needed (so the story goes) */
        volatile __local int *vs = scratch;
        vs[lid] += vs[lid + 32];
        vs[lid] += vs[lid + 16];
        vs[lid] += vs[lid + 8];
        vs[lid] += vs[lid + 4];
        vs[lid] += vs[lid + 2];
        vs[lid] += vs[lid + 1];
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
