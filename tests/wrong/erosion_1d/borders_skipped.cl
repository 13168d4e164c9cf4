// Wrong: the elements near the borders are skipped instead of clipping their windows.
__kernel void erosion_1d(__global const float *in, __global float *out, const uint n,
                         const uint radius)
{
    const uint i = get_global_id(0);
    if (i < radius || i + radius >= n)
        return;
    float m = in[i];
    for (uint j = i - radius; j <= i + radius; ++j)
        m = fmin(m, in[j]);
    out[i] = m;
}
