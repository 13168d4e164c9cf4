// RIGHT: the maximum seeded from the row's first value (every row has one), the exponentials
// stored in y during the sum's pass, then scaled by the reciprocal of the sum (y read back).
__kernel void softmax_rows(__global const float *x, __global float *y, const uint rows,
                           const uint cols)
{
    const size_t r = get_global_id(0);
    if (r >= rows)
        return;
    __global const float *in = &x[r * cols];
    __global float *out = &y[r * cols];
    float m = in[0];
    for (uint c = 1; c < cols; ++c)
        m = in[c] > m ? in[c] : m;
    float sum = 0.0f;
    for (uint c = 0; c < cols; ++c) {
        out[c] = exp(in[c] - m);
        sum += out[c];
    }
    const float inv = 1.0f / sum;
    for (uint c = 0; c < cols; ++c)
        out[c] *= inv;
}
