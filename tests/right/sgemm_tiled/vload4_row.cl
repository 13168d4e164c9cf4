// RIGHT: standard tiles; the inner loop reads a_tile's row 4 floats at a time with vload4 (broadcast), scalar tail for T < 4
__kernel void sgemm_tiled(__global const float *a, __global const float *b, __global float *c,
                          const uint m, const uint n, const uint k,
                          __local float *a_tile, __local float *b_tile)
{
    const uint T = get_local_size(0);
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (uint k0 = 0; k0 < k; k0 += T) {
        a_tile[ly * T + lx] = (row < m && k0 + lx < k) ? a[row * k + k0 + lx] : 0.0f;
        b_tile[ly * T + lx] = (k0 + ly < k && col < n) ? b[(k0 + ly) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        uint j = 0;
        for (; j + 4 <= T; j += 4) {
            const float4 av = vload4(0, a_tile + ly * T + j);
            acc += av.x * b_tile[(j + 0) * T + lx];
            acc += av.y * b_tile[(j + 1) * T + lx];
            acc += av.z * b_tile[(j + 2) * T + lx];
            acc += av.w * b_tile[(j + 3) * T + lx];
        }
        for (; j < T; ++j)
            acc += a_tile[ly * T + j] * b_tile[j * T + lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < m && col < n)
        c[row * n + col] = acc;
}
