// RIGHT: each work-item handles tiles of 4 consecutive elements starting at 4*gid with stride 4*global_size, guarding every element with i+k < n, so all n elements are counted exactly once even when n is not a multiple of 4.
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    const ulong gsize = get_global_size(0);
    for (uint b = lid; b < nbins; b += lsize)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong i = 4ul * get_global_id(0); i < n; i += 4ul * gsize)
        for (uint k = 0; k < 4; ++k)
            if (i + k < n)
                atomic_inc(&local_bins[data[i + k]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += lsize) {
        const uint c = local_bins[b];
        if (c != 0)
            atomic_add(&bins[b], c);
    }
}
