// Exercise parallel_sum: add up n ints, a partial sum per work-group.
//
// The host launches some number of work-groups (fewer or more work-items than n: do not assume
// either), reads partial[] back and adds the partials. Your kernel makes one partial per group:
//   1. each work-item adds up its own elements in a private int: i = get_global_id(0),
//      i += get_global_size(0), while i < n (neighbouring work-items read neighbouring ints);
//   2. the work-group adds its work-items' sums in scratch[] (one int per work-item; the local
//      size is a power of two) with a tree: at each step the lower half adds the upper half;
//   3. work-item 0 stores scratch[0] at partial[get_group_id(0)].
// Every work-item must reach every barrier.
//
// Check it with check("parallel_sum").

__kernel void parallel_sum(__global const int *src,
                           __global int *partial,
                           const uint n,
                           __local int *scratch)
{
    // TODO 1: this work-item's own sum (a grid-stride loop).
    // TODO 2: store it in scratch, then the tree, a barrier after each step.
    // TODO 3: work-item 0 writes the group's partial sum.
}
