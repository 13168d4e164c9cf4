// WRONG: the compare-and-swap loops are seeded by a plain read (*p) that other work-items' atomics may change at the same moment: OpenCL's memory model calls that a data race, even though the loop retries (seed with 0, or read with an atomic).
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    const uint gsize = get_global_size(0);
    for (uint b = lid; b < nbins; b += lsize)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < n; i += gsize) {
        volatile __local uint *p = &local_bins[data[i]];
        uint old = *p, prev;
        while ((prev = atomic_cmpxchg(p, old, old + 1u)) != old)
            old = prev;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += lsize) {
        const uint c = local_bins[b];
        if (c == 0) continue;
        volatile __global uint *q = &bins[b];
        uint old = *q, prev;
        while ((prev = atomic_cmpxchg(q, old, old + c)) != old)
            old = prev;
    }
}
