// Exercise mat_vec_mul: w = m . v, with m row-major (height rows of width floats).
//
// The whitepaper's step: a work-group per row, so that its work-items read neighbouring floats
// of the row (coalesced), where a work-item per row reads floats `width` apart.
//   1. loop over rows: y = get_group_id(0), y += get_num_groups(0), while y < height (there may
//      be fewer work-groups than rows);
//   2. work-item lid adds m[y * width + x] * v[x] for x = lid, lid + get_local_size(0), ...;
//   3. the work-group adds those sums in partial[] (one float per work-item, a power of two) with
//      a tree, and work-item 0 writes w[y].
// Every work-item must reach every barrier.
//
// Check it with check("mat_vec_mul").

__kernel void mat_vec_mul(__global const float *m,
                          __global const float *v,
                          const uint width,
                          const uint height,
                          __global float *w,
                          __local float *partial)
{
    // TODO 1: the loop over this work-group's rows.
    // TODO 2: this work-item's share of the row's dot product.
    // TODO 3: the tree in partial, then w[y] from work-item 0.
}
