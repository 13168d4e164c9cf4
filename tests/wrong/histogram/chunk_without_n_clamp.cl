// WRONG: the contiguous chunk [gid*chunk, gid*chunk+chunk) is not clamped to n, so data is read past n and garbage values are counted (possibly out of bounds of local_bins) whenever chunk*global_size > n, i.e. n is not a multiple of the global size or there are more work-items than elements.
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    const uint gid = get_global_id(0), gsize = get_global_size(0);
    for (uint b = lid; b < nbins; b += lsize)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint chunk = (n + gsize - 1) / gsize;
    for (uint i = gid * chunk; i < gid * chunk + chunk; ++i)
        atomic_inc(&local_bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += lsize) {
        const uint c = local_bins[b];
        if (c != 0)
            atomic_add(&bins[b], c);
    }
}
