// WRONG: uses get_local_id instead of get_global_id, so every work-group redoes the floats of group 0 and the rest of y is never touched.
__kernel void saxpy4(__global const float *x,
                     __global float *y,
                     const float a,
                     const uint n)
{
    const uint i = get_local_id(0);
    const uint first = 4 * i;
    if (first + 3 < n) {
        vstore4(a * vload4(i, x) + vload4(i, y), i, y);
    } else {
        for (uint j = first; j < n; j++)
            y[j] = a * x[j] + y[j];
    }
}
