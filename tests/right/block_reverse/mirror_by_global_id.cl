// RIGHT: no group id at all: a work-item's element is its global id, and the mirrored place is
// found from the block's end, the global id rounded down to the block plus the block's length -
// 1, minus the local id. Reads the mirrored element and writes its own, the other way round.
__kernel void block_reverse(__global const float *in, __global float *out)
{
    const size_t i = get_global_id(0);
    const size_t L = get_local_size(0);
    const size_t last = i - get_local_id(0) + L - 1;
    out[i] = in[last - get_local_id(0)];
}
