// WRONG: notebook 05's old exercise, one grid-stride chain over g, g + G, g + 2G, ... stored in
// partial[4g] and the other three set to 0. The total of all partials is still the dot product,
// but the four chains (and their independent loads) are gone.
__kernel void dot_chains(__global const float *x, __global const float *y,
                         __global float *partial, const uint n)
{
    const uint g = get_global_id(0), G = get_global_size(0);
    float sum = 0.0f;
    for (uint i = g; i < n; i += G)
        sum += x[i] * y[i];
    partial[4 * g] = sum;
    partial[4 * g + 1] = 0.0f;
    partial[4 * g + 2] = 0.0f;
    partial[4 * g + 3] = 0.0f;
}
