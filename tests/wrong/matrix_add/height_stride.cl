// WRONG: rows taken as `height` elements long (y * height + x): right only for a square matrix;
// otherwise rows overlap or leave gaps, and the index runs past the end.
__kernel void matrix_add(__global const float *a, __global const float *b, __global float *c,
                         const uint width, const uint height)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    if (x < width && y < height)
        c[y * height + x] = a[y * height + x] + b[y * height + x];
}
