// Solution of skewed_tile: element (r, c) of the tile at tile[r * T + (c + r) % T], row r
// rotated by r places, in the store (r = ly, c = lx) and in the read (r = lx, c = ly). Reading
// down column c, lane r finds its float at word r * T + (c + r) % T: a warp's 32 reads fall in
// 32 different banks, and the tile holds exactly T * T floats.
__kernel void skewed_tile(__global const float *in,
                          __global float *out,
                          const uint n,
                          __local float *tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint x = get_global_id(0), y = get_global_id(1);
    const uint row = get_group_id(0) * T + ly, col = get_group_id(1) * T + lx;
    if (row < n && col < n)
        tile[ly * T + (lx + ly) % T] = in[row * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < n && y < n)
        out[y * n + x] = in[y * n + x] + tile[lx * T + (ly + lx) % T];
}
