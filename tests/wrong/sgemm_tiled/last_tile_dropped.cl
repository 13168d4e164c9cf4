// Wrong: the tile loop stops before the last, partial step when k is not a multiple of T.
__kernel void sgemm_tiled(__global const float *a, __global const float *b, __global float *c,
                          const uint m, const uint n, const uint k,
                          __local float *a_tile, __local float *b_tile)
{
    const uint t = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint col = get_global_id(0), row = get_global_id(1);
    float sum = 0.0f;
    for (uint k0 = 0; k0 + t <= k; k0 += t) {
        a_tile[ly * t + lx] = (row < m && k0 + lx < k) ? a[row * k + k0 + lx] : 0.0f;
        b_tile[ly * t + lx] = (k0 + ly < k && col < n) ? b[(k0 + ly) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < t; j++)
            sum += a_tile[ly * t + j] * b_tile[j * t + lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < m && col < n)
        c[row * n + col] = sum;
}
