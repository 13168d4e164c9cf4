/* RIGHT: each work-item takes its row and loops over the columns j = get_global_id(0), + get_global_size(0), ..., keeping the value in a register.
 * Unusual: a loop along the row inside a work-item (under this contract it runs at most once, since
 *   the range covers cols), a row pointer into a, `restrict` qualifiers on a and b (the host passes
 *   two distinct buffers, so they do not alias), and the repeat loop on a private copy stored once.
 * Why correct: every (i, j) with i < rows, j < cols is handled by exactly one work-item; the update
 *   v = v + v * b[j] is applied repeat times in the contract's order and a single store writes it back
 *   in place; work-items outside the matrix touch nothing; repeat = 0 stores the value unchanged.
 */
__kernel void matrix_vector(__global float *restrict a,
                            __global const float *restrict b,
                            const uint rows,
                            const uint cols,
                            const uint repeat)
{
    const uint i = get_global_id(1);
    if (i >= rows)
        return;

    __global float *row = a + (size_t)i * cols;
    for (uint j = get_global_id(0); j < cols; j += get_global_size(0)) {
        const float bj = b[j];
        float v = row[j];
        for (uint r = 0; r < repeat; ++r)
            v = v + v * bj;
        row[j] = v;
    }
}
