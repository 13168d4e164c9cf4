// WRONG: the loop counts n / G steps: when n is not a multiple of G the last n % G products are
// left out.
__kernel void dot_partials(__global const float *x, __global const float *y,
                           __global float *partial, const uint n)
{
    const uint g = get_global_id(0), G = get_global_size(0);
    float sum = 0.0f;
    for (uint k = 0; k < n / G; ++k)
        sum += x[g + k * G] * y[g + k * G];
    partial[g] = sum;
}
