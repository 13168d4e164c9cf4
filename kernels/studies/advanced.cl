// Notebook 15: atomics, a sum in one pass, and a job that several devices share. Everything here
// is OpenCL C 1.2: the 32-bit atomic functions (atomic_inc, atomic_add) are core since 1.1 and
// still there in 3.0, on global and on local memory.

// Contention: every work-item adds one to counter[i % counters] `rounds` times, through an atomic
// on global memory. counters = 1 is the worst case (every work-item of the device queues on one
// address); more counters spread the queue.
__kernel void contend_global(__global uint *counter, const uint counters, const uint rounds)
{
    const uint c = get_global_id(0) % counters;
    for (uint r = 0; r < rounds; ++r)
        atomic_inc(&counter[c]);
}

// The same on local memory: each work-group counts in its own copy, then one work-item per
// counter adds the group's count to global memory (one global atomic per counter and group).
__kernel void contend_local(__global uint *counter, const uint counters, const uint rounds,
                            __local uint *mine)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    for (uint c = lid; c < counters; c += size)
        mine[c] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint c = get_global_id(0) % counters;
    for (uint r = 0; r < rounds; ++r)
        atomic_inc(&mine[c]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = lid; k < counters; k += size)
        atomic_add(&counter[k], mine[k]);
}

// The histogram exercise starts from this: one atomic on global memory per element. It has the
// exercise's signature (local_bins unused) so that the check can time it beside yours.
__kernel void histogram_global(__global const uint *data, const uint n, __global uint *bins,
                               const uint nbins, __local uint *local_bins)
{
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&bins[data[i]]);
}

// Privatized, with COPIES sub-histograms per work-group: work-item lid counts in copy
// lid % COPIES, so that fewer work-items queue on the same local counter when the data repeat one
// value. local_bins holds COPIES * nbins counters. COPIES = 1 is the plain privatized histogram.
#ifndef COPIES
#define COPIES 1
#endif
__kernel void histogram_copies(__global const uint *data, const uint n, __global uint *bins,
                               const uint nbins, __local uint *local_bins)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    for (uint k = lid; k < COPIES * nbins; k += size)
        local_bins[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint *copy = local_bins + (lid % COPIES) * nbins;
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&copy[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += size) {
        uint count = 0;
        for (uint r = 0; r < COPIES; ++r)
            count += local_bins[r * nbins + b];
        if (count)
            atomic_add(&bins[b], count);
    }
}

// A sum in one pass: the grid-stride int4 loads and tree of notebook 12's sum_modern, then each
// work-group adds its sum to totals[which] with one atomic, so no second pass and no partials to
// read. The totals alternate between two slots: work-item 0 of group 0 clears the other one,
// which this launch never adds to, for the next launch (the host clears both once). The total must
// fit in an int, as the partial sums of notebook 12 must. LOADS: how many of a work-item's int4
// loads are issued before their sums are needed (more bytes in flight per work-item). The int4s
// are read through a pointer to int4 (a buffer argument is aligned far beyond 16 bytes): from
// vload4 the PTX holds four 32-bit loads (results/history/frontier-variants-nvidia-h100.json);
// -DVLOAD4 builds that form, to compare.
#ifndef LOADS
#define LOADS 1
#endif
#ifdef VLOAD4
#define QUAD(q) vload4((q), src)
#else
#define QUAD(q) (((__global const int4 *)src)[q])
#endif
__kernel void sum_single_pass(__global const int *src, __global int *totals, const uint n,
                              const uint which, __local int *scratch)
{
    const uint lid = get_local_id(0);
    if (get_global_id(0) == 0)
        totals[1 - which] = 0;
    const size_t step = get_global_size(0);
    const size_t quads = n / 4;
    int4 acc = (int4)(0);
    size_t q = get_global_id(0);
#if LOADS > 1
    for (; q + (LOADS - 1) * step < quads; q += LOADS * step) {
        int4 part[LOADS];
        for (uint k = 0; k < LOADS; ++k)
            part[k] = QUAD(q + k * step);
        for (uint k = 0; k < LOADS; ++k)
            acc += part[k];
    }
#endif
    for (; q < quads; q += step)
        acc += QUAD(q);
    int sum = acc.x + acc.y + acc.z + acc.w;
    for (size_t t = 4 * quads + get_global_id(0); t < n; t += step)  // the last n % 4
        sum += src[t];
    scratch[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {  // power-of-two work-groups
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        atomic_add(&totals[which], scratch[0]);
}

// Nothing: what a launch costs by itself (notebook 15 times it with a 4-byte read after it).
__kernel void no_work(__global int *totals)
{
}

// The job two devices share: y[i] = x[i] pushed through `rounds` steps of x = x * A + B in eight
// independent chains (a CPU needs independent chains to fill its pipelines; see notebook 05), the
// chains' results summed. Each device gets its own slice of x and y, `count` elements long.
__kernel void shared_job(__global const float *x, __global float *y, const uint count,
                         const uint rounds)
{
    const size_t i = get_global_id(0);
    if (i >= count)
        return;
    const float a = 0.999f, b = 0.001f;
    float c[8];
    for (int k = 0; k < 8; ++k)
        c[k] = x[i] + 0.125f * k;
    for (uint r = 0; r < rounds; ++r)
        for (int k = 0; k < 8; ++k)
            c[k] = c[k] * a + b;
    float s = 0.0f;
    for (int k = 0; k < 8; ++k)
        s += c[k];
    y[i] = s;
}
