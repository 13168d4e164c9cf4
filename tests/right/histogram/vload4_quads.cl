// RIGHT: counts in local memory, reading data as uint4 quads by vload4 in a grid-stride loop and the last n % 4 values one at a time by work-item 0 of the whole range, then merges with one atomic_add per bin.
__kernel void histogram(__global const uint *data,
                        const uint n,
                        __global uint *bins,
                        const uint nbins,
                        __local uint *local_bins)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    for (uint b = lid; b < nbins; b += size)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const size_t quads = n / 4;
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const uint4 v = vload4(q, data);
        atomic_inc(&local_bins[v.x]);
        atomic_inc(&local_bins[v.y]);
        atomic_inc(&local_bins[v.z]);
        atomic_inc(&local_bins[v.w]);
    }
    if (get_global_id(0) == 0)
        for (size_t i = 4 * quads; i < n; ++i)
            atomic_inc(&local_bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += size) {
        const uint count = local_bins[b];
        if (count)
            atomic_add(&bins[b], count);
    }
}
