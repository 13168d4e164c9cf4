// Exercise column_sums: the sum of each column of a matrix.
//
// m is a row-major matrix of height rows and width columns: element (i, j), row i and
// column j, is m[i * width + j]. Work-item j (the global id) adds up column j, all its
// height rows, and stores the sum in sums[j]. The global size may be rounded up past
// width: the work-items past the last column do nothing.
//
// The check also asks that at every step the 32 work-items of a warp read neighbouring
// floats (coalesced reads): think about which work-item gets which column.
//
// Check it from the notebook with check("column_sums"), or from a shell:
//     python -m helpers check column_sums

__kernel void column_sums(__global const float *m,
                          __global float *sums,
                          const uint width,
                          const uint height)
{
    // TODO: the column of this work-item; if it is a column of the matrix, add up its
    //       height elements in a private variable and store the sum in sums.
}
