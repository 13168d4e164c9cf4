// Wrong: chunks rounded up, with no guard: the last work-items run past the end.
__kernel void sum_ints_multi(__global const int *a, __global const int *b, __global int *c,
                             const uint n)
{
    const uint per = (n + get_global_size(0) - 1) / get_global_size(0);
    const uint first = get_global_id(0) * per;
    for (uint k = 0; k < per; ++k)
        c[first + k] = a[first + k] + b[first + k];
}
