// Solution of block_reverse: the block's start, then the local id mirrored inside the block.
__kernel void block_reverse(__global const float *in,
                            __global float *out)
{
    const size_t size = get_local_size(0);
    const size_t start = get_group_id(0) * size;
    const size_t l = get_local_id(0);
    out[start + (size - 1 - l)] = in[start + l];
}
