__kernel void histogram(__global const uint *data, const uint n, __global uint *bins,
                        const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    for (uint b = lid; b < nbins; b += size)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&local_bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += size)
        bins[b] = local_bins[b];
}
