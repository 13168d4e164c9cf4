__kernel void histogram(__global const uint *data, const uint n, __global uint *bins,
                        const uint nbins, __local uint *local_bins)
{
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        bins[data[i]]++;
}
