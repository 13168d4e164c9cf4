// Exercise block_reverse: each work-group reverses its own block.
//
// The data is cut into blocks of get_local_size(0) elements, one per work-group (the
// global size is the data's length, a multiple of the local size). Each work-group
// writes its block backwards into out, in the same place: the first element of its block
// of in becomes the last of its block of out, the second the one before that, and so on.
// The kernel below uses the global id for everything: it copies, it reverses nothing.
//
// Check it from the notebook with check("block_reverse"), or from a shell:
//     python -m helpers check block_reverse

__kernel void block_reverse(__global const float *in,
                            __global float *out)
{
    const size_t i = get_global_id(0);
    // TODO: find this work-item's block, its place in the block, and the mirrored place.
    out[i] = in[i];
}
