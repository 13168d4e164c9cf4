// RIGHT: the grid-stride loop advances by 2G and adds the products of i and, guarded inside the body, i + G, covering exactly g, g + G, g + 2G, ... < n.
__kernel void dot_partials(__global const float *x,
                           __global const float *y,
                           __global float *partial,
                           const uint n)
{
    const uint g = get_global_id(0);
    const uint G = get_global_size(0);
    float sum = 0.0f;
    for (uint i = g; i < n; i += 2 * G) {
        sum += x[i] * y[i];
        if (i + G < n)
            sum += x[i + G] * y[i + G];
    }
    partial[g] = sum;
}
