// Solution of saxpy4: whole float4s through vload4/vstore4 (their offset counts float4s), the
// work-item whose four floats cross n one float at a time.
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
        for (uint j = first; j < n; j++)
            y[j] = a * x[j] + y[j];
    }
}
