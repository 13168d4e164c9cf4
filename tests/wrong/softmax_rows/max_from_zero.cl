// WRONG: the maximum starts from 0, as a sum would: in a row whose values all lie far below 0,
// m stays 0 and every exp(x - 0) underflows to 0, so the row is 0 / 0.
__kernel void softmax_rows(__global const float *x, __global float *y, const uint rows,
                           const uint cols)
{
    const uint r = get_global_id(0);
    if (r >= rows)
        return;
    float m = 0.0f;
    for (uint c = 0; c < cols; ++c)
        m = fmax(m, x[r * cols + c]);
    float sum = 0.0f;
    for (uint c = 0; c < cols; ++c)
        sum += exp(x[r * cols + c] - m);
    for (uint c = 0; c < cols; ++c)
        y[r * cols + c] = exp(x[r * cols + c] - m) / sum;
}
