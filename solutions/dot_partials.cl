// Solution of dot_partials: a grid-stride loop, the sum kept in a register.
__kernel void dot_partials(__global const float *x,
                           __global const float *y,
                           __global float *partial,
                           const uint n)
{
    const uint g = get_global_id(0);
    const uint size = get_global_size(0);
    float sum = 0.0f;
    for (uint i = g; i < n; i += size)
        sum += x[i] * y[i];
    partial[g] = sum;
}
