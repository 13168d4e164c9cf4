// Solution of matrix_add: one work-item per element, guarded in both dimensions.
__kernel void matrix_add(__global const float *a,
                         __global const float *b,
                         __global float *c,
                         const uint width,
                         const uint height)
{
    const uint x = get_global_id(0);   // column
    const uint y = get_global_id(1);   // row
    if (x < width && y < height) {
        const uint k = y * width + x;
        c[k] = a[k] + b[k];
    }
}
