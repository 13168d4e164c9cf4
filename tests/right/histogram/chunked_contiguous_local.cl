// RIGHT: each work-item counts one contiguous chunk of ceil(n/global_size) elements (clamped to n, so items past the end do nothing) into a lid-stride-zeroed local histogram that is merged into bins with atomic_add.
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    const uint gid = get_global_id(0), gsize = get_global_size(0);
    for (uint b = lid; b < nbins; b += lsize)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint chunk = (n + gsize - 1) / gsize;
    const uint start = min(gid * chunk, n);
    const uint end = min(start + chunk, n);
    for (uint i = start; i < end; ++i)
        atomic_inc(&local_bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += lsize)
        atomic_add(&bins[b], local_bins[b]);
}
