// WRONG: a work-item past the data returns at once, as a one-element-per-work-item kernel may:
// here it still owns four partial sums, which it must store as 0 (G may exceed n).
__kernel void dot_chains(__global const float *x, __global const float *y,
                         __global float *partial, const uint n)
{
    const uint g = get_global_id(0), G = get_global_size(0);
    if (g >= n)
        return;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (uint i = g; i < n; i += 4 * G) {
        s0 += x[i] * y[i];
        if (i + G < n) s1 += x[i + G] * y[i + G];
        if (i + 2 * G < n) s2 += x[i + 2 * G] * y[i + 2 * G];
        if (i + 3 * G < n) s3 += x[i + 3 * G] * y[i + 3 * G];
    }
    partial[4 * g] = s0;
    partial[4 * g + 1] = s1;
    partial[4 * g + 2] = s2;
    partial[4 * g + 3] = s3;
}
