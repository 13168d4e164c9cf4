// WRONG: two 16-bit counters are packed into each local uint (value v in half v&1 of local_bins[v/2]) to save local memory, so a half overflows (carrying into the neighbour bin or being lost) whenever one work-group counts 65536 or more occurrences of a single value.
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0), lsize = get_local_size(0);
    const uint gid = get_global_id(0), gsize = get_global_size(0);
    const uint words = (nbins + 1) / 2;
    for (uint w = lid; w < words; w += lsize)
        local_bins[w] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = gid; i < n; i += gsize) {
        const uint v = data[i];
        atomic_add(&local_bins[v >> 1], 1u << (16u * (v & 1u)));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += lsize) {
        const uint c = (local_bins[b >> 1] >> (16u * (b & 1u))) & 0xFFFFu;
        if (c != 0)
            atomic_add(&bins[b], c);
    }
}
