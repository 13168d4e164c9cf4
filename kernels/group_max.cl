// Exercise group_max: the maximum of n floats, a partial maximum per work-group.
//
// The host launches some number of work-groups (fewer or more work-items than n: do not assume
// either) and takes the maximum of partial[]. Your kernel makes one partial per group:
//   1. each work-item takes the maximum of its own elements in a private float:
//      i = get_global_id(0), i += get_global_size(0), while i < n;
//   2. the work-group combines its work-items' maximums in scratch[] (one float per work-item;
//      the local size is a power of two) with a tree: at each step the lower half keeps the
//      larger of its own slot and the one in the upper half;
//   3. work-item 0 stores scratch[0] at partial[get_group_id(0)].
// The values have both signs and any magnitude; a work-group that covers no element writes
// -INFINITY. Every work-item must reach every barrier.
//
// Check it from the notebook with check("group_max"), or from a shell:
//     python -m helpers check group_max

__kernel void group_max(__global const float *src,
                        __global float *partial,
                        const uint n,
                        __local float *scratch)
{
    // TODO 1: this work-item's own maximum (a grid-stride loop).
    // TODO 2: store it in scratch, then the tree, a barrier after each step.
    // TODO 3: work-item 0 writes the group's maximum.
}
