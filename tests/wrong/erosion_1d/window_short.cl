// Solution of erosion_1d: every work-item reads its whole window from global memory.

__kernel void erosion_1d(__global const float *in,
                         __global float *out,
                         const uint n,
                         const uint radius)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    // Clip the window to the data. On a uint, i - radius would wrap around below 0:
    // max(i, radius) - radius stops at 0.
    const uint first = max(i, radius) - radius;
    const uint last = min(i + radius, n);
    float m = in[first];
    for (uint j = first + 1; j < last; ++j)
        m = fmin(m, in[j]);
    out[i] = m;
}
