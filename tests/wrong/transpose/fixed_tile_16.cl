// WRONG: a fixed __local float tile[16][17] instead of the tile argument: right for T <= 16, writes
// past the tile for T = 32 or more, which the contract allows.
__kernel void transpose(__global const float *in, __global float *out, const uint width,
                        const uint height, __local float *unused)
{
    __local float tile[16][17];
    const uint t = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint bx = get_group_id(0) * t, by = get_group_id(1) * t;
    if (bx + lx < width && by + ly < height)
        tile[ly][lx] = in[(by + ly) * width + bx + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (by + lx < height && bx + ly < width)
        out[(bx + ly) * height + by + lx] = tile[lx][ly];
}
