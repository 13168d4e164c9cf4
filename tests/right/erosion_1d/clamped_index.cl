// RIGHT: loops over the whole unclipped window and clamps each index into the data: indices before 0 re-read in[0] and past n - 1 re-read in[n - 1], both inside the clipped window already, so the minimum is unchanged.
__kernel void erosion_1d(__global const float *in,
                         __global float *out,
                         const uint n,
                         const uint radius)
{
    const int i = (int)get_global_id(0);
    if (i >= (int)n)
        return;
    float m = INFINITY;
    for (int d = -(int)radius; d <= (int)radius; ++d)
        m = fmin(m, in[clamp(i + d, 0, (int)n - 1)]);
    out[i] = m;
}
