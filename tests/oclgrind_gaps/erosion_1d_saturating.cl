// Correct, but Oclgrind 21.10 cannot simulate the saturating subtraction the compiler makes of it.

__kernel void erosion_1d(__global const float *in,
                         __global float *out,
                         const uint n,
                         const uint radius)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    // Clip the window to the data (written the way Oclgrind cannot simulate).
    const uint first = i > radius ? i - radius : 0;
    const uint last = min(i + radius, n - 1);
    float m = in[first];
    for (uint j = first + 1; j <= last; ++j)
        m = fmin(m, in[j]);
    out[i] = m;
}
