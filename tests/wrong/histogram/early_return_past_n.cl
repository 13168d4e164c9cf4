// WRONG: work-items with gid >= n return before the barriers, so in a work-group straddling n the barriers are divergent and the bins those work-items should zero and merge are left as garbage or never added, whenever the global size exceeds n and n is not a multiple of the local size.
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    const uint gid = get_global_id(0), gsize = get_global_size(0);
    if (gid >= n)
        return;
    for (uint b = lid; b < nbins; b += lsize)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = gid; i < n; i += gsize)
        atomic_inc(&local_bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += lsize) {
        const uint c = local_bins[b];
        if (c != 0)
            atomic_add(&bins[b], c);
    }
}
