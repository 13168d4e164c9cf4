// Solution of dot_chains: four independent chains, each step four loads in flight and four
// multiply-adds that wait on none of the others (ILP and MLP); each load coalesced across a warp.
__kernel void dot_chains(__global const float *x,
                         __global const float *y,
                         __global float *partial,
                         const uint n)
{
    const uint g = get_global_id(0);
    const uint G = get_global_size(0);
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    uint i = g;
    for (; i + 3 * G < n; i += 4 * G) {     // a whole step: all four elements below n
        s0 += x[i] * y[i];
        s1 += x[i + G] * y[i + G];
        s2 += x[i + 2 * G] * y[i + 2 * G];
        s3 += x[i + 3 * G] * y[i + 3 * G];
    }
    // the last step, if any, holds fewer than four: each chain's own index decides
    if (i < n)
        s0 += x[i] * y[i];
    if (i + G < n)
        s1 += x[i + G] * y[i + G];
    if (i + 2 * G < n)
        s2 += x[i + 2 * G] * y[i + 2 * G];
    partial[4 * g] = s0;
    partial[4 * g + 1] = s1;
    partial[4 * g + 2] = s2;
    partial[4 * g + 3] = s3;
}
