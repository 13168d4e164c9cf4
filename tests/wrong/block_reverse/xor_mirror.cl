// WRONG: mirrors the local id as l ^ (L - 1), which equals L - 1 - l only when the local size L is a power of two; with another L it writes to the wrong places (and outside the block).
__kernel void block_reverse(__global const float *in,
                            __global float *out)
{
    const size_t L = get_local_size(0);
    const size_t start = get_group_id(0) * L;
    const size_t l = get_local_id(0);
    out[start + (l ^ (L - 1))] = in[start + l];
}
