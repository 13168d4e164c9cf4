// WRONG: bins[data[i]]++ on global memory is a non-atomic read-modify-write, so concurrent work-items hitting the same bin lose increments whenever more than one work-item runs (large n, few bins makes it near-certain).
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint gsize = get_global_size(0);
    for (uint i = get_global_id(0); i < n; i += gsize)
        bins[data[i]]++;
}
