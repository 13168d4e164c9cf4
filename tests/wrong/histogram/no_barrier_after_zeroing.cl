// WRONG: there is no barrier between zeroing local_bins and counting, so a work-item can zero a bin after other work-items already incremented it (losing counts) whenever the group has more than one work-item.
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    const uint gid = get_global_id(0), gsize = get_global_size(0);
    for (uint b = lid; b < nbins; b += lsize)
        local_bins[b] = 0;
    for (uint i = gid; i < n; i += gsize)
        atomic_inc(&local_bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += lsize) {
        const uint c = local_bins[b];
        if (c != 0)
            atomic_add(&bins[b], c);
    }
}
