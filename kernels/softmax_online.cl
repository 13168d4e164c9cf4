// Exercise softmax_online (notebook 17, rung 3): softmax_group's result with two passes over
// the row instead of three.
//
// Launched as softmax_group (a work-group of L per row, L a power of two, 1 included; work-item
// lid on columns lid, lid + L, ...: neighbouring work-items on neighbouring floats, coalesced).
// maxes and sums hold L floats each; x is read twice, y written once.
//   1. in one pass over its columns, each work-item keeps a running maximum m and a running
//      sum s of exp(x - m); when a value raises the maximum, the sum so far was taken against
//      the old one and must be rescaled;
//   2. the group merges the pairs (m, s) with a tree in maxes and sums, rescaling alike;
//   3. each work-item writes y for its columns.
// Rows may be shorter than the work-group: some work-items have no column at all.
//
// Check it with check("softmax_online").

__kernel void softmax_online(__global const float *x,
                             __global float *y,
                             const uint rows,
                             const uint cols,
                             __local float *maxes,
                             __local float *sums)
{
    // TODO 1: this work-item's running maximum and sum, in one pass.
    // TODO 2: the tree over (maxes, sums).
    // TODO 3: this work-item's share of y.
}
