// WRONG: the four sums are right but stored chain by chain, chain k of work-item g at
// partial[k * G + g] (a layout whose stores would be coalesced): the contract keeps a work-item's
// four sums side by side, at partial[4g + k].
__kernel void dot_chains(__global const float *x, __global const float *y,
                         __global float *partial, const uint n)
{
    const uint g = get_global_id(0), G = get_global_size(0);
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (uint i = g; i < n; i += 4 * G) {
        s0 += x[i] * y[i];
        if (i + G < n) s1 += x[i + G] * y[i + G];
        if (i + 2 * G < n) s2 += x[i + 2 * G] * y[i + 2 * G];
        if (i + 3 * G < n) s3 += x[i + 3 * G] * y[i + 3 * G];
    }
    partial[g] = s0;
    partial[G + g] = s1;
    partial[2 * G + g] = s2;
    partial[3 * G + g] = s3;
}
