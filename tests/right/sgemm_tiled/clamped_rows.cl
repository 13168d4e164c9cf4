// RIGHT: tiles are loaded from row, column and k indices clamped into the matrices; only a's tile is zeroed past k (b's duplicates there multiply that zero), and rows/columns past m and n are never stored.
__kernel void sgemm_tiled(__global const float *a,
                          __global const float *b,
                          __global float *c,
                          const uint m,
                          const uint n,
                          const uint k,
                          __local float *a_tile,
                          __local float *b_tile)
{
    const uint t = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint col = get_global_id(0), row = get_global_id(1);
    const uint ar = min(row, m - 1), bc = min(col, n - 1);
    float sum = 0.0f;
    for (uint k0 = 0; k0 < k; k0 += t) {
        const float av = a[ar * k + min(k0 + lx, k - 1)];
        a_tile[ly * t + lx] = (k0 + lx < k) ? av : 0.0f;
        b_tile[ly * t + lx] = b[min(k0 + ly, k - 1) * n + bc];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < t; j++)
            sum += a_tile[ly * t + j] * b_tile[j * t + lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < m && col < n)
        c[row * n + col] = sum;
}
