// Exercise matrix_vector: how much work per byte?
//
// a is a rows x cols matrix, row-major; b a vector of cols floats. For every
// element, repeat times:  a[i][j] = a[i][j] + a[i][j] * b[j]   (in place)
// The range is 2-D: get_global_id(0) is the column j, get_global_id(1) the row i,
// each rounded up past the matrix.
//
// Check it with check("matrix_vector").

__kernel void matrix_vector(__global float *a,
                            __global const float *b,
                            const uint rows,
                            const uint cols,
                            const uint repeat)
{
    // TODO: this work-item's element; apply the update repeat times; store it.
}
