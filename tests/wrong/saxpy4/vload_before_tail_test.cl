// WRONG: vload4s a whole float4 of x and y before testing whether the four floats lie below n, then stores only the lanes below n; the tail work-item and those past n read x and y past their end.
__kernel void saxpy4(__global const float *x,
                     __global float *y,
                     const float a,
                     const uint n)
{
    const uint i = get_global_id(0);
    const uint first = 4 * i;
    const float4 r = a * vload4(i, x) + vload4(i, y);
    if (first + 3 < n) {
        vstore4(r, i, y);
    } else {
        if (first < n)     y[first] = r.x;
        if (first + 1 < n) y[first + 1] = r.y;
        if (first + 2 < n) y[first + 2] = r.z;
    }
}
