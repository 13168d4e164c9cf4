// RIGHT: rows rotated the other way (column c of row r at (c + T - r) % T) and the element
// stored at its transposed place, so that the read goes along a row: any rotation that differs
// from row to row spreads a column over the banks.
__kernel void skewed_tile(__global const float *in, __global float *out, const uint n,
                          __local float *tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint row = get_group_id(0) * T + ly, col = get_group_id(1) * T + lx;
    // element (ly, lx) of the block kept as tile row lx, column ly: the store goes down a column
    if (row < n && col < n)
        tile[lx * T + (ly + T - lx) % T] = in[row * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint x = get_global_id(0), y = get_global_id(1);
    if (x < n && y < n)
        out[y * n + x] = in[y * n + x] + tile[ly * T + (lx + T - ly) % T];
}
