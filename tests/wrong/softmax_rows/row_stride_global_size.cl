// WRONG: rows taken to be get_global_size(0) floats long, as in a grid-stride loop: the row
// length is cols.
__kernel void softmax_rows(__global const float *x, __global float *y, const uint rows,
                           const uint cols)
{
    const uint r = get_global_id(0);
    if (r >= rows)
        return;
    const size_t start = (size_t)r * get_global_size(0);
    float m = -INFINITY;
    for (uint c = 0; c < cols; ++c)
        m = fmax(m, x[start + c]);
    float sum = 0.0f;
    for (uint c = 0; c < cols; ++c)
        sum += exp(x[start + c] - m);
    for (uint c = 0; c < cols; ++c)
        y[start + c] = exp(x[start + c] - m) / sum;
}
