// RIGHT: by its result: every work-item with a whole float4 does it; the leftover n % 4 floats are done by work-item 0 instead of the crossing work-item, which does nothing. Each float is still written by exactly one work-item, as float4 where whole.
__kernel void saxpy4(__global const float *x,
                     __global float *y,
                     const float a,
                     const uint n)
{
    const uint i = get_global_id(0);
    const uint whole = n / 4u;
    if (i < whole)
        vstore4(a * vload4(i, x) + vload4(i, y), i, y);
    if (i == 0) {
        for (uint j = whole * 4u; j < n; j++)
            y[j] = a * x[j] + y[j];
    }
}
