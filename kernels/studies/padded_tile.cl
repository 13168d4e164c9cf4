// The former exercise padded_tile's solution (rows of T + 1), kept as the H100 measured it
// (results/history/warp-truth-nvidia-h100.json, "padded_tile (model case)"; tools/cuda_twins.py).
__kernel void padded_tile(__global const float *in,
                          __global float *out,
                          const uint n,
                          __local float *tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint x = get_global_id(0), y = get_global_id(1);
    const uint row = get_group_id(0) * T + ly, col = get_group_id(1) * T + lx;
    if (row < n && col < n)
        tile[ly * (T + 1) + lx] = in[row * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < n && y < n)
        out[y * n + x] = in[y * n + x] + tile[lx * (T + 1) + ly];
}
