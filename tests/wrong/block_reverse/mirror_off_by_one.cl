// WRONG: the mirrored place is start + L - l, one too far: every element lands one place to the
// right, the block's first slot is never written, and the last work-group writes past the end.
__kernel void block_reverse(__global const float *in, __global float *out)
{
    const size_t L = get_local_size(0);
    const size_t l = get_local_id(0);
    const size_t start = get_group_id(0) * L;
    out[start + L - l] = in[start + l];
}
