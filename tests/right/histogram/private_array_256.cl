// RIGHT: every work-item counts its grid-stride elements into a private uint[256] array (first nbins entries zeroed) and then atomic_adds its non-zero counts to bins, which is correct for all nbins <= 256 (but uses 1 KiB of private memory per work-item).
__kernel void histogram(__global const uint *data, const uint n, __global uint *bins, const uint nbins, __local uint *local_bins)
{
    uint priv[256];
    const uint gsize = get_global_size(0);
    for (uint b = 0; b < nbins; ++b)
        priv[b] = 0;
    for (uint i = get_global_id(0); i < n; i += gsize)
        priv[data[i]]++;
    for (uint b = 0; b < nbins; ++b)
        if (priv[b] != 0)
            atomic_add(&bins[b], priv[b]);
}
