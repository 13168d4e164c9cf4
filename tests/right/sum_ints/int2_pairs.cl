// RIGHT: work-item i adds a pair of ints at 2i as one int2 (vload2/vstore2) when both are below n, the last odd element alone; the extra work-items do nothing.
__kernel void sum_ints(__global const int *a,
                       __global const int *b,
                       __global int *c,
                       const uint n)
{
    const uint i = get_global_id(0);
    const uint first = 2 * i;
    if (first + 1 < n)
        vstore2(vload2(i, a) + vload2(i, b), i, c);
    else if (first < n)
        c[first] = a[first] + b[first];
}
