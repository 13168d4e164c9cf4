// The parallel-sum ladder of notebook 12: the training's six steps, written for this course, a
// seventh that is correct on any device, and one shaped for a CPU. Every kernel has the
// parallel_sum signature: each work-group writes the sum of the elements it covers to
// partial[get_group_id(0)], and the host adds the partials. Local sizes are powers of two.

// 1. Tree in global memory, interleaved: at step s, work-items whose local id is a multiple of
//    2s add the element s places on. It adds in place, so it overwrites src.
__kernel void sum_global(__global int *src, __global int *partial, const uint n,
                         __local int *scratch)
{
    const uint gid = get_global_id(0), lid = get_local_id(0);
    for (uint s = 1; s < get_local_size(0); s *= 2) {
        if (lid % (2 * s) == 0 && gid + s < n)
            src[gid] += src[gid + s];
        barrier(CLK_GLOBAL_MEM_FENCE);  // every work-item reaches it, in range or not
    }
    if (lid == 0)
        partial[get_group_id(0)] = gid < n ? src[gid] : 0;
}

// 2. The same tree in local memory: one read of global memory per element.
__kernel void sum_local(__global const int *src, __global int *partial, const uint n,
                        __local int *scratch)
{
    const uint gid = get_global_id(0), lid = get_local_id(0);
    scratch[lid] = gid < n ? src[gid] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < get_local_size(0); s *= 2) {
        if (lid % (2 * s) == 0)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}

// The first add happens while loading: each work-item reads `per` elements, one every global
// size (neighbouring work-items read neighbouring elements: coalesced).
inline int load_strided(__global const int *src, const uint n, const uint per)
{
    const size_t step = get_global_size(0);
    size_t i = get_global_id(0);
    int sum = 0;
    for (uint k = 0; k < per; ++k, i += step)
        if (i < n)
            sum += src[i];
    return sum;
}

// 3. Half the work-items, two elements each, still the interleaved tree. Its `lid % (2 * s)`
//    leaves active work-items scattered over every warp: they all diverge.
__kernel void sum_local_two(__global const int *src, __global int *partial, const uint n,
                            __local int *scratch)
{
    const uint lid = get_local_id(0);
    scratch[lid] = load_strided(src, n, 2);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < get_local_size(0); s *= 2) {
        if (lid % (2 * s) == 0)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}

// Sequential addressing: at each step the first s work-items add the upper half onto the
// lower half. Active work-items stay packed in the first warps; the others skip together.
inline void tree_sequential(__local int *scratch, const uint lid, const uint stop)
{
    for (uint s = get_local_size(0) / 2; s > stop; s /= 2) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

// 4. Two elements each, sequential addressing (the thread reordering of the training).
__kernel void sum_sequential(__global const int *src, __global int *partial, const uint n,
                             __local int *scratch)
{
    const uint lid = get_local_id(0);
    scratch[lid] = load_strided(src, n, 2);
    barrier(CLK_LOCAL_MEM_FENCE);
    tree_sequential(scratch, lid, 0);
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}

// 5. Four elements each: a quarter of the work-items, more independent loads in flight.
__kernel void sum_four(__global const int *src, __global int *partial, const uint n,
                       __local int *scratch)
{
    const uint lid = get_local_id(0);
    scratch[lid] = load_strided(src, n, 4);
    barrier(CLK_LOCAL_MEM_FENCE);
    tree_sequential(scratch, lid, 0);
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}

// 6. Four elements each, and the last 64 partial sums added by one warp with no barrier,
//    trusting its 32 work-items to run in lockstep. OpenCL promises no such thing: this is a
//    data race (Oclgrind reports it), and GPUs since NVIDIA Volta schedule a warp's work-items
//    independently. Needs a local size of at least 64. Kept to show why not to do it.
__kernel void sum_warp_unrolled(__global const int *src, __global int *partial, const uint n,
                                __local int *scratch)
{
    const uint lid = get_local_id(0);
    scratch[lid] = load_strided(src, n, 4);
    barrier(CLK_LOCAL_MEM_FENCE);
    tree_sequential(scratch, lid, 32);
    if (lid < 32) {
        volatile __local int *v = scratch;
        v[lid] += v[lid + 32];
        v[lid] += v[lid + 16];
        v[lid] += v[lid + 8];
        v[lid] += v[lid + 4];
        v[lid] += v[lid + 2];
        v[lid] += v[lid + 1];
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}

// 7. Correct everywhere, and fast: any global size (a grid-stride loop, four ints per load
//    where they are aligned), a barrier at every step of the tree. The host launches just
//    enough work-groups to fill the device, so there are few partials to add.
__kernel void sum_modern(__global const int *src, __global int *partial, const uint n,
                         __local int *scratch)
{
    const uint lid = get_local_id(0);
    const size_t step = get_global_size(0);
    const size_t quads = n / 4;
    int4 acc = (int4)(0);
    for (size_t q = get_global_id(0); q < quads; q += step)
        acc += vload4(q, src);
    int sum = acc.x + acc.y + acc.z + acc.w;
    for (size_t t = 4 * quads + get_global_id(0); t < n; t += step)  // the last n % 4
        sum += src[t];
    scratch[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    tree_sequential(scratch, lid, 0);
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}

// For a CPU: one contiguous chunk per work-item, read front to back, which is what a core's
// prefetcher and vector unit want. Few work-items (a few per core) and small work-groups.
__kernel void sum_chunks(__global const int *src, __global int *partial, const uint n,
                         __local int *scratch)
{
    const uint lid = get_local_id(0);
    const size_t items = get_global_size(0);
    const size_t chunk = (n + items - 1) / items;
    const size_t start = get_global_id(0) * chunk;
    const size_t end = min(start + chunk, (size_t)n);
    int sum = 0;
    for (size_t i = start; i < end; ++i)
        sum += src[i];
    scratch[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    tree_sequential(scratch, lid, 0);
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
