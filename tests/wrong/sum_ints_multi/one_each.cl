// Wrong: one element per work-item, as in sum_ints; the range has fewer work-items than n.
__kernel void sum_ints_multi(__global const int *a, __global const int *b, __global int *c,
                             const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}
