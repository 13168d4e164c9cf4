// Wrong: the window is not clipped at the borders: it reads before the start and past the end.
__kernel void erosion_1d(__global const float *in, __global float *out, const uint n,
                         const uint radius)
{
    const int i = get_global_id(0);
    if (i >= (int)n)
        return;
    float m = in[i];
    for (int j = i - (int)radius; j <= i + (int)radius; ++j)
        m = fmin(m, in[j]);
    out[i] = m;
}
