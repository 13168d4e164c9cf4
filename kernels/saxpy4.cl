// Exercise saxpy4: y = a * x + y, four consecutive floats per work-item, as float4s.
//
// Work-item i owns floats 4i, 4i + 1, 4i + 2 and 4i + 3: y[j] = a * x[j] + y[j] for each
// of them below n. The host launches at least n / 4 (rounded up) work-items, rounded up
// again to the work-group size, so some work-items may own no float at all, and when n is
// no multiple of 4 one work-item's four floats cross n.
// vload4(k, p) reads the k-th float4 of p, p[4k] to p[4k + 3]; vstore4(v, k, p) writes v
// there.
//
// Check it from the notebook with check("saxpy4"), or from a shell:
//     python -m helpers check saxpy4

__kernel void saxpy4(__global const float *x,
                     __global float *y,
                     const float a,
                     const uint n)
{
    const uint i = get_global_id(0);
    // TODO 1: all four floats below n: one float4 of x and of y, one float4 stored.
    // TODO 2: the four floats cross n: those below n, one at a time.
}
