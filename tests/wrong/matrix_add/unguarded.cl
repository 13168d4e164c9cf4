// WRONG: no guard at all: the work-items of the rounded-up range past the last column or below
// the last row store outside c (and read outside a and b).
__kernel void matrix_add(__global const float *a, __global const float *b, __global float *c,
                         const uint width, const uint height)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint k = y * width + x;
    c[k] = a[k] + b[k];
}
