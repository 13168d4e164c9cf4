// Exercise softmax_rows (notebook 17, rung 1): the softmax of each row of a matrix.
//
// x and y are row-major, rows x cols floats. For each row r, with m the row's maximum:
//     y[r][c] = exp(x[r][c] - m) / (the sum over the row of exp(x[r][c'] - m))
// The values may reach a few hundred in magnitude, of either sign: exp overflows float above
// about 88.7 and gives 0 below about -103, which is why m is subtracted.
//
// One work-item per row (r = get_global_id(0)); the global size may exceed rows. The
// work-item walks its row three times: the maximum, the sum, then the quotients.
//
// Check it with check("softmax_rows"), or from a shell:
//     python -m helpers check softmax_rows

__kernel void softmax_rows(__global const float *x,
                           __global float *y,
                           const uint rows,
                           const uint cols)
{
    // TODO 1: the row of this work-item, and nothing to do past the last row.
    // TODO 2: the row's maximum.
    // TODO 3: the sum of the exponentials, then each y of the row.
}
