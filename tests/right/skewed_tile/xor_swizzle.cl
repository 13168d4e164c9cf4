// RIGHT: rows of T with an XOR swizzle (column c of row r at r*T + (c ^ r)) instead of the
// rotation: c ^ r stays below T for power-of-two T, and differs from row to row down a column.
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
        tile[ly * T + (lx ^ ly)] = in[row * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < n && y < n)
        out[y * n + x] = in[y * n + x] + tile[lx * T + (ly ^ lx)];
}
