// WRONG: left = n - 4*i underflows (uint) for the work-items past n, which then look as if they had >= 4 floats and take the float4 path past the end.
__kernel void saxpy4(__global const float *x,
                     __global float *y,
                     const float a,
                     const uint n)
{
    const uint i = get_global_id(0);
    const uint left = n - 4 * i;
    if (left >= 4) {
        vstore4(a * vload4(i, x) + vload4(i, y), i, y);
    } else {
        for (uint j = 0; j < left; j++)
            y[4 * i + j] = a * x[4 * i + j] + y[4 * i + j];
    }
}
