// Exercise sum_ints_multi: the same sum, with fewer work-items than elements.
//
// c[i] = a[i] + b[i] for every i < n, but the launch has only
// get_global_size(0) work-items, fewer than n: each one handles several
// elements. n need not be a multiple of the global size.
//
// Check it with check("sum_ints_multi").

__kernel void sum_ints_multi(__global const int *a,
                             __global const int *b,
                             __global int *c,
                             const uint n)
{
    // TODO: loop over this work-item's share of the elements.
}
