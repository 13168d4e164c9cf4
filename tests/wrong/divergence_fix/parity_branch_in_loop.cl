// WRONG: the technique is missing: the branch on the element's parity moved inside the loop. Right values, but
// neighbouring work-items disagree on it every round: every warp splits in every round.
__kernel void divergence_fix(__global const float *x, __global float *y, const uint n,
                             const uint rounds)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    float v = x[i];
    for (uint r = 0; r < rounds; ++r) {
        if (i % 2 == 0)
            v = 0.9f * v + 0.1f;
        else
            v = 0.25f * v * v - 0.5f;
    }
    y[i] = v;
}
