// RIGHT: no vector type at all: a loop over the work-item's four floats, each guarded. The result
// is the contract's (the exercise's float4s are its technique, not its contract).
__kernel void saxpy4(__global const float *x, __global float *y, const float a, const uint n)
{
    for (uint k = 0; k < 4; k++) {
        uint j = 4 * get_global_id(0) + k;
        if (j < n)
            y[j] = fma(a, x[j], y[j]);
    }
}
