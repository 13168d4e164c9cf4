// WRONG: adds a[k] + b[k] before the two-dimensional guard and stores only inside the matrix; the work-items of the rounded-up rows below the matrix read a and b past their end.
__kernel void matrix_add(__global const float *a,
                         __global const float *b,
                         __global float *c,
                         const uint width,
                         const uint height)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint k = y * width + x;
    const float s = a[k] + b[k];
    if (x < width && y < height)
        c[k] = s;
}
