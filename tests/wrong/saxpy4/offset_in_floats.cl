// WRONG: vload4's offset counts float4s, so vload4(4 * i, x) reads x[16i .. 16i + 3]: the wrong
// floats, and past the end of x for most work-items.
__kernel void saxpy4(__global const float *x, __global float *y, const float a, const uint n)
{
    uint i = get_global_id(0);
    if (4 * i + 3 < n) {
        vstore4(a * vload4(4 * i, x) + vload4(4 * i, y), 4 * i, y);
    } else {
        for (uint j = 4 * i; j < n; j++)
            y[j] = a * x[j] + y[j];
    }
}
