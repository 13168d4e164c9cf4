// WRONG: builds the row from the group id and local id with get_local_size(0) as the group's height, which is right only for square work-groups; 16 x 1 or 8 x 4 groups compute the wrong rows.
__kernel void matrix_add(__global const float *a,
                         __global const float *b,
                         __global float *c,
                         const uint width,
                         const uint height)
{
    const uint s = get_local_size(0);
    const uint x = get_group_id(0) * s + get_local_id(0);
    const uint y = get_group_id(1) * s + get_local_id(1);
    if (x < width && y < height) {
        const uint k = y * width + x;
        c[k] = a[k] + b[k];
    }
}
