// RIGHT: a plain grid-stride loop doing atomic_add(&bins[v], 1) directly on global memory is slow but correct for every NDRange, and it never touches local_bins.
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint gsize = get_global_size(0);
    for (uint i = get_global_id(0); i < n; i += gsize)
        atomic_add(&bins[data[i]], 1u);
}
