// WRONG: only the column is guarded: the rows of work-items below the matrix (the range's height
// rounded up past `height`) read and write past the end of the buffers.
__kernel void matrix_add(__global const float *a, __global const float *b, __global float *c,
                         const uint width, const uint height)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    if (x < width)
        c[y * width + x] = a[y * width + x] + b[y * width + x];
}
