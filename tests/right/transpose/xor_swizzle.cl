// RIGHT: no padding: rows of T with an XOR swizzle (column c of row r at r*T + (c ^ r)), conflict-free for any power-of-two T
__kernel void transpose(__global const float *in,
                        __global float *out,
                        const uint width,
                        const uint height,
                        __local float *tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint x = get_group_id(0) * T + lx, y = get_group_id(1) * T + ly;
    if (x < width && y < height)
        tile[ly * T + (lx ^ ly)] = in[y * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint ox = get_group_id(1) * T + lx, oy = get_group_id(0) * T + ly;
    if (ox < height && oy < width)
        out[oy * height + ox] = tile[lx * T + (ly ^ lx)];
}
