// RIGHT: elements are visited back to front (index n-1-k for a grid-stride k, no unsigned underflow since k < n), and the local bins are drained with atomic_xchg(..., 0) before a non-zero atomic_add, which is correct for every NDRange.
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    const uint gsize = get_global_size(0);
    for (uint b = lid; b < nbins; b += lsize)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = get_global_id(0); k < n; k += gsize)
        atomic_inc(&local_bins[data[n - 1u - k]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += lsize) {
        const uint c = atomic_xchg(&local_bins[b], 0u);
        if (c != 0)
            atomic_add(&bins[b], c);
    }
}
