// WRONG: the merge does bins[b] = local_bins[b] instead of adding, which discards the counts already in bins (always wrong when bins arrive non-zero) and lets work-groups overwrite each other when there is more than one group.
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    const uint gid = get_global_id(0), gsize = get_global_size(0);
    for (uint b = lid; b < nbins; b += lsize)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = gid; i < n; i += gsize)
        atomic_inc(&local_bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += lsize)
        bins[b] = local_bins[b];
}
