// WRONG: the technique is missing. The learner numbered the columns "group by group across the
// range" (local id times the number of groups, plus the group id): every column is still summed
// once and stored in its place, but neighbouring work-items of a warp walk columns a whole number
// of groups apart, so each read of a warp touches many sectors (not coalesced).
__kernel void column_sums(__global const float *m, __global float *sums, const uint width,
                          const uint height)
{
    const uint j = get_local_id(0) * get_num_groups(0) + get_group_id(0);
    if (j >= width)
        return;
    float s = 0.0f;
    for (uint i = 0; i < height; ++i)
        s += m[i * width + j];
    sums[j] = s;
}
