// WRONG: the grid-stride loop multiplies x[i] * y[i] before testing i < n and breaks only afterwards, so every work-item reads one element past its last one, past the end of x and y.
__kernel void dot_partials(__global const float *x,
                           __global const float *y,
                           __global float *partial,
                           const uint n)
{
    const uint g = get_global_id(0);
    const uint G = get_global_size(0);
    float sum = 0.0f;
    uint i = g;
    for (;;) {
        const float p = x[i] * y[i];
        if (i >= n)
            break;
        sum += p;
        i += G;
    }
    partial[g] = sum;
}
