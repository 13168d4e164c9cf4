// Wrong: the branch was removed, and with it the odd elements' step.
__kernel void divergence_fix(__global const float *x, __global float *y, const uint n,
                             const uint rounds)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    float v = x[i];
    for (uint r = 0; r < rounds; ++r)
        v = 0.9f * v + 0.1f;
    y[i] = v;
}
