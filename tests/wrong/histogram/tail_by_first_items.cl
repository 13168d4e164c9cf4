// WRONG: counts uint4 quads in a grid-stride loop and leaves the n % 4 tail values to the first n % 4 work-items of the range, which assumes at least three work-items: with a global size of 1 or 2 tail values go uncounted.
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
    if (get_global_id(0) < n % 4)
        atomic_inc(&local_bins[data[4 * quads + get_global_id(0)]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += size) {
        const uint count = local_bins[b];
        if (count)
            atomic_add(&bins[b], count);
    }
}
