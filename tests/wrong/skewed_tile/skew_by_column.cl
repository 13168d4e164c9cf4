// WRONG: skewed by the column instead of the row: column c of the tile rotated down by c places,
// element (r, c) at tile[((r + c) % T) * T + c]. The values are right, but a column still lies in
// one bank: every float of it keeps its column c, and rows of T floats put column c in bank
// c % 32 (T = 32: a 32-way conflict).
__kernel void skewed_tile(__global const float *in, __global float *out, const uint n,
                          __local float *tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint x = get_global_id(0), y = get_global_id(1);
    const uint row = get_group_id(0) * T + ly, col = get_group_id(1) * T + lx;
    if (row < n && col < n)
        tile[((ly + lx) % T) * T + lx] = in[row * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < n && y < n)
        out[y * n + x] = in[y * n + x] + tile[((lx + ly) % T) * T + ly];
}
