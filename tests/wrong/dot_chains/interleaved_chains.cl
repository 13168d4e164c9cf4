// WRONG: each work-item takes four neighbouring elements a step (chain k at 4g + k, stepping by
// 4G), the way a CPU would split the work: the partials hold other elements' sums, and on a GPU a
// warp's load would span four times the sectors.
__kernel void dot_chains(__global const float *x, __global const float *y,
                         __global float *partial, const uint n)
{
    const uint g = get_global_id(0), G = get_global_size(0);
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (uint i = 4 * g; i < n; i += 4 * G) {
        s0 += x[i] * y[i];
        if (i + 1 < n) s1 += x[i + 1] * y[i + 1];
        if (i + 2 < n) s2 += x[i + 2] * y[i + 2];
        if (i + 3 < n) s3 += x[i + 3] * y[i + 3];
    }
    partial[4 * g] = s0;
    partial[4 * g + 1] = s1;
    partial[4 * g + 2] = s2;
    partial[4 * g + 3] = s3;
}
