// WRONG: the tile is padded only when T < 32: at T = 32 its rows are 32 floats, and a warp reading
// down a column of the tile reads 32 words of one bank (a 32-way conflict on a GPU).
__kernel void transpose(__global const float *in, __global float *out, const uint width,
                        const uint height, __local float *tile)
{
    const uint t = get_local_size(0);
    const uint row = t < 32 ? t + 1 : t;
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint bx = get_group_id(0) * t, by = get_group_id(1) * t;
    if (bx + lx < width && by + ly < height)
        tile[ly * row + lx] = in[(by + ly) * width + bx + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint ox = by + lx, oy = bx + ly;
    if (ox < height && oy < width)
        out[oy * height + ox] = tile[lx * row + ly];
}
