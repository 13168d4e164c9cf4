// Solution of sum_ints_multi: a grid-stride loop.
//
// Work-item i takes elements i, i + G, i + 2G, ... (G = get_global_size(0)).
// At every step neighbouring work-items touch neighbouring elements, so the
// accesses of a group stay contiguous (coalesced on a GPU), and the loop bound
// is n itself: no element is left over whatever n and G are.

__kernel void sum_ints_multi(__global const int *a,
                             __global const int *b,
                             __global int *c,
                             const uint n)
{
    const uint step = get_global_size(0);
    for (uint i = get_global_id(0); i < n; i += step)
        c[i] = a[i] + b[i];
}
