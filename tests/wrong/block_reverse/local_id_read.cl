// WRONG: the read uses the local id alone (in[l]) and forgets the block's start: every work-group
// reads the first block, so every block of out holds the first block of in reversed.
__kernel void block_reverse(__global const float *in, __global float *out)
{
    const size_t L = get_local_size(0);
    const size_t l = get_local_id(0);
    const size_t start = get_group_id(0) * L;
    out[start + L - 1 - l] = in[l];
}
