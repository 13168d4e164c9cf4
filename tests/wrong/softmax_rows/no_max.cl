// WRONG: the formula without the maximum, exp(x) / sum of exp(x): mathematically the same, but
// exp(95) is infinity in float and exp(-150) is 0, so those rows become inf / inf or 0 / 0.
__kernel void softmax_rows(__global const float *x, __global float *y, const uint rows,
                           const uint cols)
{
    const uint r = get_global_id(0);
    if (r >= rows)
        return;
    float sum = 0.0f;
    for (uint c = 0; c < cols; ++c)
        sum += exp(x[r * cols + c]);
    for (uint c = 0; c < cols; ++c)
        y[r * cols + c] = exp(x[r * cols + c]) / sum;
}
