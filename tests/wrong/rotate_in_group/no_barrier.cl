// WRONG: no barrier between the store into the tile and the read of the neighbour's slot: the
// neighbour may not have stored its element yet (a data race on local memory).
__kernel void rotate_in_group(__global const float *in, __global float *out, __local float *tile)
{
    const size_t i = get_global_id(0);
    const size_t l = get_local_id(0);
    const size_t L = get_local_size(0);
    tile[l] = in[i];
    out[i] = tile[(l + 1) % L];
}
