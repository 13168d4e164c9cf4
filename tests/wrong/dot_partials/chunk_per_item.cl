// WRONG: a chunk of ceil(n / G) neighbouring elements per work-item, the way a CPU likes it: the
// contract's partial[g] is the grid-stride sum, so the values are wrong (and on a GPU a warp's
// loads would be a chunk apart, not coalesced).
__kernel void dot_partials(__global const float *x, __global const float *y,
                           __global float *partial, const uint n)
{
    const uint G = get_global_size(0);
    const uint per = (n + G - 1) / G;
    const uint first = get_global_id(0) * per;
    float sum = 0.0f;
    for (uint i = first; i < min(first + per, n); ++i)
        sum += x[i] * y[i];
    partial[get_global_id(0)] = sum;
}
