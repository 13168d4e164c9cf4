// WRONG: loads in[i - k] and in[i + k] unconditionally and only picks them with a ternary when they are inside the data, so the edge work-items read before the start and past the end of in.
__kernel void erosion_1d(__global const float *in,
                         __global float *out,
                         const uint n,
                         const uint radius)
{
    const int i = (int)get_global_id(0);
    if (i >= (int)n)
        return;
    float m = in[i];
    for (int k = 1; k <= (int)radius; ++k) {
        const float left = in[i - k];
        const float right = in[i + k];
        m = fmin(m, i - k >= 0 ? left : INFINITY);
        m = fmin(m, i + k < (int)n ? right : INFINITY);
    }
    out[i] = m;
}
