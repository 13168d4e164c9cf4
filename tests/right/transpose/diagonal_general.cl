// RIGHT: blocks visited in diagonal order, the general (non-square grid) mapping; the division
// makes LLVM emit freeze, which Oclgrind's uninitialized-value plugin cannot simulate.
__kernel void transpose(__global const float *in, __global float *out, const uint width,
                        const uint height, __local float *tile)
{
    const uint t = get_local_size(0);
    uint bx, by;
    if (get_num_groups(0) == get_num_groups(1)) {
        by = get_group_id(0);
        bx = (get_group_id(0) + get_group_id(1)) % get_num_groups(0);
    } else {
        uint bid = get_group_id(0) + get_num_groups(0) * get_group_id(1);
        by = bid % get_num_groups(1);
        bx = ((bid / get_num_groups(1)) + by) % get_num_groups(0);
    }
    const uint lx = get_local_id(0), ly = get_local_id(1);
    uint x = bx * t + lx, y = by * t + ly;
    if (x < width && y < height) tile[ly * (t + 1) + lx] = in[y * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint ox = by * t + lx, oy = bx * t + ly;
    if (ox < height && oy < width) out[oy * height + ox] = tile[lx * (t + 1) + ly];
}
