// Exercise matrix_add: add two matrices, c = a + b.
//
// The matrices are height x width floats, row-major: element (x, y), column x of row y,
// is at a[y * width + x]. The range is 2-D: get_global_id(0) is the column x,
// get_global_id(1) the row y, each rounded up past the matrix to a multiple of the
// work-group's size in that dimension (work-groups may be 16 x 1, 1 x 16, 8 x 4, ...).
//
// Check it from the notebook with check("matrix_add"), or from a shell:
//     python -m helpers check matrix_add

__kernel void matrix_add(__global const float *a,
                         __global const float *b,
                         __global float *c,
                         const uint width,
                         const uint height)
{
    const uint x = get_global_id(0);   // column
    const uint y = get_global_id(1);   // row
    // TODO: if this work-item has an element, store the sum of a and b there.
}
