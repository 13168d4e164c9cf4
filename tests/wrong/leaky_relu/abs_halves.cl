// WRONG: branch-free as 0.5 (v + |v|) + 0.005 (v - |v|), exact for ordinary values, but v + |v| overflows to infinity when |v| > FLT_MAX / 2.
__kernel void leaky_relu(__global const float *x,
                         __global float *y,
                         const uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float v = x[i];
    y[i] = 0.5f * (v + fabs(v)) + 0.005f * (v - fabs(v));
}
