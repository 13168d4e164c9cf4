// RIGHT: work-item 0 alone zeroes all nbins local bins in a loop and, after a second barrier, alone adds every bin (zeros included) to global memory, which is serial but correct for any group size and nbins.
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0);
    const uint gsize = get_global_size(0);
    if (lid == 0)
        for (uint b = 0; b < nbins; ++b)
            local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < n; i += gsize)
        atomic_inc(&local_bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        for (uint b = 0; b < nbins; ++b)
            atomic_add(&bins[b], local_bins[b]);
}
