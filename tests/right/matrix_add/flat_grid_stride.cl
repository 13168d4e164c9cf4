// RIGHT: the matrix as one flat list of width * height elements, walked with a stride of the
// whole 2-D range's work-items: work-item (x, y) starts at its own number in the range and adds
// every element it meets. Every element is written once, whatever the range's shape.
__kernel void matrix_add(__global const float *a, __global const float *b, __global float *c,
                         const uint width, const uint height)
{
    const uint items = get_global_size(0) * get_global_size(1);
    const uint first = get_global_id(1) * get_global_size(0) + get_global_id(0);
    for (uint k = first; k < width * height; k += items)
        c[k] = a[k] + b[k];
}
