// WRONG: the guard lets the work-item r == rows through: it reads and writes one row past the
// end of x and y whenever the range is wider than the rows.
__kernel void softmax_rows(__global const float *x, __global float *y, const uint rows,
                           const uint cols)
{
    const uint r = get_global_id(0);
    if (r > rows)
        return;
    float m = -INFINITY;
    for (uint c = 0; c < cols; ++c)
        m = fmax(m, x[r * cols + c]);
    float sum = 0.0f;
    for (uint c = 0; c < cols; ++c)
        sum += exp(x[r * cols + c] - m);
    for (uint c = 0; c < cols; ++c)
        y[r * cols + c] = exp(x[r * cols + c] - m) / sum;
}
