// WRONG: skewed only when a row is a whole warp wide, T = 32 ("smaller tiles have no conflict"):
// with T = 16 a warp reads two columns of 16 rows, words 16 apart, 8 in each of 4 banks (an
// 8-way conflict).
__kernel void skewed_tile(__global const float *in, __global float *out, const uint n,
                          __local float *tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint x = get_global_id(0), y = get_global_id(1);
    const uint row = get_group_id(0) * T + ly, col = get_group_id(1) * T + lx;
    const uint s = T == 32 ? 1 : 0;
    if (row < n && col < n)
        tile[ly * T + (lx + s * ly) % T] = in[row * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < n && y < n)
        out[y * n + x] = in[y * n + x] + tile[lx * T + (ly + s * lx) % T];
}
