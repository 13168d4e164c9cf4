// WRONG: the tail loop starts at i (the work-item's index) instead of 4*i, so the crossing work-item redoes floats i..n-1 that other work-items already updated.
__kernel void saxpy4(__global const float *x,
                     __global float *y,
                     const float a,
                     const uint n)
{
    const uint i = get_global_id(0);
    const uint first = 4 * i;
    if (first + 3 < n) {
        vstore4(a * vload4(i, x) + vload4(i, y), i, y);
    } else {
        for (uint j = i; j < n; j++)
            y[j] = a * x[j] + y[j];
    }
}
