// WRONG: starts the window's minimum from 1e30f instead of INFINITY or the data, so a window whose values all exceed 1e30 (finite floats go up to 3.4e38) gets 1e30.
__kernel void erosion_1d(__global const float *in,
                         __global float *out,
                         const uint n,
                         const uint radius)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const uint first = max(i, radius) - radius;
    const uint last = min(i + radius, n - 1);
    float m = 1e30f;
    for (uint j = first; j <= last; ++j)
        m = fmin(m, in[j]);
    out[i] = m;
}
