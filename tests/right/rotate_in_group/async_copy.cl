// RIGHT: the block is loaded into the tile with async_work_group_copy (a coalesced group copy)
__kernel void rotate_in_group(__global const float *in,
                              __global float *out,
                              __local float *tile)
{
    const size_t l = get_local_id(0);
    const size_t L = get_local_size(0);
    const size_t base = get_group_id(0) * L;
    event_t e = async_work_group_copy(tile, in + base, L, 0);
    wait_group_events(1, &e);
    out[base + l] = tile[(l + 1) % L];
}
