// RIGHT: stores the block into the tile mirrored (tile[L - 1 - l]) and reads the neighbour at its mirrored slot, after the barrier; the result is the same rotation.
__kernel void rotate_in_group(__global const float *in,
                              __global float *out,
                              __local float *tile)
{
    const size_t i = get_global_id(0);
    const size_t l = get_local_id(0);
    const size_t L = get_local_size(0);
    tile[L - 1 - l] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    const size_t next = (l + 1 == L) ? 0 : l + 1;
    out[i] = tile[L - 1 - next];
}
