// WRONG: local_bins is never zeroed, so whatever garbage local memory holds (e.g. left by a previous work-group or launch) is added to bins whenever that memory is not zero by chance.
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    const uint gid = get_global_id(0), gsize = get_global_size(0);
    for (uint i = gid; i < n; i += gsize)
        atomic_inc(&local_bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += lsize) {
        const uint c = local_bins[b];
        if (c != 0)
            atomic_add(&bins[b], c);
    }
}
