// Solution of histogram: each work-group counts in its own histogram in local memory, where an
// atomic costs little, then adds every count it has to the global histogram with one atomic.

__kernel void histogram(__global const uint *data,
                        const uint n,
                        __global uint *bins,
                        const uint nbins,
                        __local uint *local_bins)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);

    // Zero all nbins local counters: nbins may be larger than the work-group, so each work-item
    // zeroes every size-th one. Nobody counts before all of them are zero.
    for (uint b = lid; b < nbins; b += size)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    // Count: the whole range strides over the data (neighbours read neighbours), however many
    // work-items there are. Two work-items of the group may meet the same value: atomic.
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&local_bins[data[i]]);
    // Every count of this work-group is in local_bins before anyone reads them.
    barrier(CLK_LOCAL_MEM_FENCE);

    // Merge: one atomic per counter and work-group, added to what bins already holds. Other
    // work-groups add to the same bins: atomic again. A zero adds nothing, so it is skipped.
    for (uint b = lid; b < nbins; b += size) {
        const uint count = local_bins[b];
        if (count)
            atomic_add(&bins[b], count);
    }
}
