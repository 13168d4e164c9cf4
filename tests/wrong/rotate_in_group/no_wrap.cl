// WRONG: the neighbour's index is not wrapped round: the last work-item of a group reads
// tile[L], one past the end of the tile, instead of tile[0].
__kernel void rotate_in_group(__global const float *in, __global float *out, __local float *tile)
{
    const size_t i = get_global_id(0);
    const size_t l = get_local_id(0);
    tile[l] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = tile[l + 1];
}
