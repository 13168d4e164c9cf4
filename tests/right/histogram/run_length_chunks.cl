// RIGHT: each work-item walks a clamped contiguous chunk, keeps the current run of equal consecutive values in a private register, flushes each run (and the last one) with atomic_add into local memory, then the group merges with atomic_add.
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    const uint gid = get_global_id(0), gsize = get_global_size(0);
    for (uint b = lid; b < nbins; b += lsize)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint chunk = (n + gsize - 1) / gsize;
    const uint start = min(gid * chunk, n);
    const uint end = min(start + chunk, n);
    uint cur = 0, cnt = 0;
    for (uint i = start; i < end; ++i) {
        const uint v = data[i];
        if (cnt != 0 && v != cur) {
            atomic_add(&local_bins[cur], cnt);
            cnt = 0;
        }
        cur = v;
        ++cnt;
    }
    if (cnt != 0)
        atomic_add(&local_bins[cur], cnt);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += lsize) {
        const uint c = local_bins[b];
        if (c != 0)
            atomic_add(&bins[b], c);
    }
}
