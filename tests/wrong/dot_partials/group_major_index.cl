// WRONG: the technique is missing: the work-item's number composed the other way round (local id
// times the number of groups plus the group id, where the group id times the local size plus the
// local id is meant). Every partial is still the right grid-stride sum, stored in its place; but
// neighbouring work-items of a group now sum elements a whole number of groups apart, so a warp's
// loads are not coalesced.
__kernel void dot_partials(__global const float *x, __global const float *y,
                           __global float *partial, const uint n)
{
    const uint g = get_local_id(0) * get_num_groups(0) + get_group_id(0);
    const uint G = get_global_size(0);
    float sum = 0.0f;
    for (uint i = g; i < n; i += G)
        sum += x[i] * y[i];
    partial[g] = sum;
}
