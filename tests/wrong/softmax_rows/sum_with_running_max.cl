// WRONG: the maximum and the sum fused into one loop without rescaling: each term is taken
// against the maximum so far, so terms before the row's maximum are too large.
__kernel void softmax_rows(__global const float *x, __global float *y, const uint rows,
                           const uint cols)
{
    const uint r = get_global_id(0);
    if (r >= rows)
        return;
    float m = -INFINITY, sum = 0.0f;
    for (uint c = 0; c < cols; ++c) {
        m = fmax(m, x[r * cols + c]);
        sum += exp(x[r * cols + c] - m);
    }
    for (uint c = 0; c < cols; ++c)
        y[r * cols + c] = exp(x[r * cols + c] - m) / sum;
}
