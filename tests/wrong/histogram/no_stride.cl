__kernel void histogram(__global const uint *data, const uint n, __global uint *bins,
                        const uint nbins, __local uint *local_bins)
{
    const size_t i = get_global_id(0);
    if (i < n)
        atomic_inc(&bins[data[i]]);
}
