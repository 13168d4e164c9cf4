// WRONG: the loop tests only the first chain's index: in the last step the other three chains read
// x and y at i + G, i + 2G, i + 3G past n, outside the buffers.
__kernel void dot_chains(__global const float *x, __global const float *y,
                         __global float *partial, const uint n)
{
    const uint g = get_global_id(0), G = get_global_size(0);
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (uint i = g; i < n; i += 4 * G) {
        s0 += x[i] * y[i];
        s1 += x[i + G] * y[i + G];
        s2 += x[i + 2 * G] * y[i + 2 * G];
        s3 += x[i + 3 * G] * y[i + 3 * G];
    }
    partial[4 * g] = s0;
    partial[4 * g + 1] = s1;
    partial[4 * g + 2] = s2;
    partial[4 * g + 3] = s3;
}
