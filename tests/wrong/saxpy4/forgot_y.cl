// WRONG: forgets y in the sum (y = a * x) in both the float4 path and the tail.
__kernel void saxpy4(__global const float *x,
                     __global float *y,
                     const float a,
                     const uint n)
{
    const uint i = get_global_id(0);
    const uint first = 4 * i;
    if (first + 3 < n) {
        vstore4(a * vload4(i, x), i, y);
    } else {
        for (uint j = first; j < n; j++)
            y[j] = a * x[j];
    }
}
