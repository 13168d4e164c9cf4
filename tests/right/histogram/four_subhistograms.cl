// RIGHT: the group keeps four sub-histograms in a static __local uint[4*256] array (work-item lid uses copy lid%4, all 4*nbins entries zeroed with a lid-stride loop), and each bin's four copies are summed and atomic_added to bins after a barrier.
#define COPIES 4
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    __local uint sub[COPIES * 256];
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    const uint gsize = get_global_size(0);
    for (uint k = lid; k < COPIES * nbins; k += lsize)
        sub[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint *mine = sub + (lid % COPIES) * nbins;
    for (uint i = get_global_id(0); i < n; i += gsize)
        atomic_inc(&mine[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += lsize) {
        uint s = 0;
        for (uint c = 0; c < COPIES; ++c)
            s += sub[c * nbins + b];
        if (s != 0)
            atomic_add(&bins[b], s);
    }
}
