// RIGHT: the skew, the read's indices computed after the barrier: row r of the tile
// stored rotated by r places (column c at (c + r) % T), so reading down a column the lanes land
// in different banks.
__kernel void skewed_tile(__global const float *in, __global float *out, const uint n,
                          __local float *tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint row = get_group_id(0) * T + ly, col = get_group_id(1) * T + lx;
    if (row < n && col < n)
        tile[ly * T + (lx + ly) % T] = in[row * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint x = get_global_id(0), y = get_global_id(1);
    if (x < n && y < n)
        out[y * n + x] = in[y * n + x] + tile[lx * T + (ly + lx) % T];
}
