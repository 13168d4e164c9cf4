// Exercise histogram (notebook 15): a correct kernel is the start; the check also measures it.
//
// Count how often each value occurs among data[0], ..., data[n - 1] and ADD those counts to
// `bins`: bins[v] += (number of i < n with data[i] == v). Every data[i] is below nbins, and
// nbins <= 256. `bins` arrives holding counts already (from earlier data, say): add to them,
// never overwrite them.
//
// 1-D range of any size: there may be far fewer work-items than elements, or more. Work-groups
// may have any size. `local_bins` holds nbins uints, one set per work-group, and starts out
// holding anything.
//
// Two work-items may meet the same value at the same time, so `bins[v]++` loses counts: use an
// atomic (atomic_inc, atomic_add). One atomic on global memory per element is correct, and where
// the exercise starts, but slow: every work-item of the device queues on the same few addresses.
// Count in `local_bins` first (zero it, wait, count, wait), then add each of the work-group's
// counts to `bins` once.
//
// Check it with check("histogram"): the verdict says how fast it is against this device's copy
// bandwidth, the solution, and the one-global-atomic-per-element kernel it starts from.

__kernel void histogram(__global const uint *data,
                        const uint n,
                        __global uint *bins,
                        const uint nbins,
                        __local uint *local_bins)
{
    // TODO
}
