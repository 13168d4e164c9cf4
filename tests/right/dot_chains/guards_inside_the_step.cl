// RIGHT: one loop while the first chain's index is below n, the other three chains' loads guarded
// inside the body (chain 0's index is the smallest of the step, so no element is missed); mad()
// for the multiply-adds; a work-item with no element at all stores its four zeros all the same.
__kernel void dot_chains(__global const float *x, __global const float *y,
                         __global float *partial, const uint n)
{
    const uint g = get_global_id(0), G = get_global_size(0);
    float a = 0.0f, b = 0.0f, c = 0.0f, d = 0.0f;
    for (uint i = g; i < n; i += 4 * G) {
        a = mad(x[i], y[i], a);
        if (i + G < n)
            b = mad(x[i + G], y[i + G], b);
        if (i + 2 * G < n)
            c = mad(x[i + 2 * G], y[i + 2 * G], c);
        if (i + 3 * G < n)
            d = mad(x[i + 3 * G], y[i + 3 * G], d);
    }
    partial[4 * g + 0] = a;
    partial[4 * g + 1] = b;
    partial[4 * g + 2] = c;
    partial[4 * g + 3] = d;
}
