// Solution of softmax_rows: one work-item per row, three passes over it. The maximum is
// subtracted before exp: every exponent is then at most 0, so nothing overflows, and the
// largest term is exp(0) = 1, so the sum is at least 1 and never 0.

__kernel void softmax_rows(__global const float *x,
                           __global float *y,
                           const uint rows,
                           const uint cols)
{
    const uint r = get_global_id(0);
    if (r >= rows)
        return;
    __global const float *in = x + (size_t)r * cols;
    __global float *out = y + (size_t)r * cols;
    float m = -INFINITY;
    for (uint c = 0; c < cols; ++c)
        m = fmax(m, in[c]);
    float sum = 0.0f;
    for (uint c = 0; c < cols; ++c)
        sum += exp(in[c] - m);
    for (uint c = 0; c < cols; ++c)
        out[c] = exp(in[c] - m) / sum;
}
