// WRONG: padding only when T < 32 (rows of T at T = 32: a 32-way bank conflict down the column)
__kernel void padded_tile(__global const float *in,
                          __global float *out,
                          const uint n,
                          __local float *tile)
{
    const uint T = get_local_size(0);
    const uint S = T < 32 ? T + 1 : T;
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint x = get_global_id(0), y = get_global_id(1);
    const uint row = get_group_id(0) * T + ly, col = get_group_id(1) * T + lx;
    if (row < n && col < n)
        tile[ly * S + lx] = in[row * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < n && y < n)
        out[y * n + x] = in[y * n + x] + tile[lx * S + ly];
}
