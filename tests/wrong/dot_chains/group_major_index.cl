// WRONG: the technique is missing: the work-item's number composed the other way round (local id
// times the number of groups plus the group id, where the group id times the local size plus the
// local id is meant). Every partial is still the right sum, stored in its place; but neighbouring
// work-items of a group now read elements a whole number of groups apart, so a warp's loads are
// not coalesced.
__kernel void dot_chains(__global const float *x, __global const float *y,
                         __global float *partial, const uint n)
{
    const uint g = get_local_id(0) * get_num_groups(0) + get_group_id(0);
    const uint G = get_global_size(0);
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (uint i = g; i < n; i += 4 * G) {
        s0 += x[i] * y[i];
        if (i + G < n) s1 += x[i + G] * y[i + G];
        if (i + 2 * G < n) s2 += x[i + 2 * G] * y[i + 2 * G];
        if (i + 3 * G < n) s3 += x[i + 3 * G] * y[i + 3 * G];
    }
    partial[4 * g] = s0;
    partial[4 * g + 1] = s1;
    partial[4 * g + 2] = s2;
    partial[4 * g + 3] = s3;
}
