// Solution of sum_ints: one work-item per element.

__kernel void sum_ints(__global const int *a,
                       __global const int *b,
                       __global int *c,
                       const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)          // the range is rounded up past n
        c[i] = a[i] + b[i];
}
