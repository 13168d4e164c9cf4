// Exercise sum_ints: add two lists, one work-item per element.
//
// c[i] = a[i] + b[i] for every i < n. As in float_copy, the global size is
// rounded up to a multiple of the work-group size, so it may exceed n.
//
// Check it with check("sum_ints"), or from a shell: python -m helpers check sum_ints

__kernel void sum_ints(__global const int *a,
                       __global const int *b,
                       __global int *c,
                       const uint n)
{
    // TODO: this work-item's element, then c = a + b there if it is in range.
}
