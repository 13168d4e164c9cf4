// WRONG: the last work-item with a whole float4 also does the leftover floats after it (those of the next work-item), and the crossing work-item still does them too: the tail is updated twice, by two work-items at once.
__kernel void saxpy4(__global const float *x,
                     __global float *y,
                     const float a,
                     const uint n)
{
    const uint i = get_global_id(0);
    const uint first = 4 * i;
    if (first + 3 < n) {
        vstore4(a * vload4(i, x) + vload4(i, y), i, y);
        if (first + 8 > n)                       /* "I am the last full one: take the rest" */
            for (uint j = first + 4; j < n; j++)
                y[j] = a * x[j] + y[j];
    } else {
        for (uint j = first; j < n; j++)
            y[j] = a * x[j] + y[j];
    }
}
