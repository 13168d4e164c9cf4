// WRONG: the skew wrapped at the bank count, % 32, instead of at the row's length, % T: right
// for T = 32, but with T = 16 a row's skewed floats run into the next row, and the last row's
// past the end of the tile.
__kernel void skewed_tile(__global const float *in, __global float *out, const uint n,
                          __local float *tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint x = get_global_id(0), y = get_global_id(1);
    const uint row = get_group_id(0) * T + ly, col = get_group_id(1) * T + lx;
    if (row < n && col < n)
        tile[ly * T + (lx + ly) % 32] = in[row * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < n && y < n)
        out[y * n + x] = in[y * n + x] + tile[lx * T + (ly + lx) % 32];
}
