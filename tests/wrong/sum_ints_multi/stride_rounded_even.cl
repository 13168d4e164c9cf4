// WRONG: rounds the grid stride up to an even number "to keep pairs aligned", so with an odd global size (1 included) the stride exceeds the number of work-items and elements are skipped.
__kernel void sum_ints_multi(__global const int *a,
                             __global const int *b,
                             __global int *c,
                             const uint n)
{
    const uint step = (get_global_size(0) + 1) & ~1u;
    for (uint i = get_global_id(0); i < n; i += step)
        c[i] = a[i] + b[i];
}
