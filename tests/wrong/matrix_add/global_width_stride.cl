// WRONG: the row stride taken from the range (get_global_size(0)) instead of the matrix's width:
// the range's width is rounded up past the matrix, so rows land too far apart, elements between
// them are never written, and the last rows fall past the end of c.
__kernel void matrix_add(__global const float *a, __global const float *b, __global float *c,
                         const uint width, const uint height)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint k = y * get_global_size(0) + x;
    if (x < width && y < height)
        c[k] = a[k] + b[k];
}
