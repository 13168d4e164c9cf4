/* WRONG: the range's dimensions are swapped, dimension 0 taken as the row and dimension 1 as the column, so elements beyond the range's extent in the other dimension are never updated.
 * Mistake: i = get_global_id(0) (meant: the column), j = get_global_id(1) (meant: the row). Addressing
 *   a[i * cols + j], the update with b[j] and the guards are consistent with that choice, so each
 *   element it reaches is updated exactly once, correctly.
 * Shows: whenever rows > global size(0) or cols > global size(1); the contract sizes dimension 0 for
 *   cols and dimension 1 for rows, so a tall or wide matrix (e.g. 100 x 30 with a range of 32 x 112)
 *   leaves rows i >= global size(0) or columns j >= global size(1) untouched (still the input values).
 *   Square matrices, and any launch whose range covers max(rows, cols) in both dimensions, are right.
 * A good checker's first sentence: "elements of rows >= <global size(0)> were never updated: dimension 0
 *   of the range is the column j and dimension 1 the row i, the other way round from this kernel."
 */
__kernel void matrix_vector(__global float *a,
                            __global const float *b,
                            const uint rows,
                            const uint cols,
                            const uint repeat)
{
    const uint i = get_global_id(0);   /* row */
    const uint j = get_global_id(1);   /* column */
    if (i >= rows || j >= cols)
        return;

    const uint at = i * cols + j;
    float v = a[at];
    const float bj = b[j];
    for (uint r = 0; r < repeat; ++r)
        v = v + v * bj;
    a[at] = v;
}
