// WRONG: mirrored in the global range instead of the block: the whole list is reversed, and
// every block lands at the other end of out.
__kernel void block_reverse(__global const float *in, __global float *out)
{
    const size_t i = get_global_id(0);
    out[get_global_size(0) - 1 - i] = in[i];
}
