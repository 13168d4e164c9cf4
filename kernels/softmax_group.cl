// Exercise softmax_group (notebook 17, rung 2): the same softmax as softmax_rows, one
// work-group per row.
//
// The range holds rows work-groups; group g computes row g. Its L work-items (L a power of two,
// 1 included) share the row: work-item lid visits columns lid, lid + L, lid + 2L, ... below
// cols, so that neighbouring work-items read neighbouring floats. scratch holds L floats.
//   1. each work-item's maximum over its columns, then the group's maximum by a tree in
//      scratch (as in group_max);
//   2. each work-item's sum of exp(x - m) over its columns, then the group's sum by a tree in
//      scratch (as in parallel_sum);
//   3. each work-item writes y for its columns.
// Every work-item must reach every barrier; scratch is reused, so mind who still reads it.
//
// Check it with check("softmax_group").

__kernel void softmax_group(__global const float *x,
                            __global float *y,
                            const uint rows,
                            const uint cols,
                            __local float *scratch)
{
    // TODO 1: the group's maximum.
    // TODO 2: the group's sum.
    // TODO 3: this work-item's share of y.
}
