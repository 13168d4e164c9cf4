// WRONG: right values, but the tiles are decoys: each work-item fills one element of each and
// reads them back once, then multiplies from global memory (every element of a and b read t times).
__kernel void sgemm_tiled(__global const float *a, __global const float *b, __global float *c,
                          const uint m, const uint n, const uint k, __local float *a_tile,
                          __local float *b_tile)
{
    const uint lx = get_local_id(0), ly = get_local_id(1), t = get_local_size(0);
    const uint col = get_global_id(0), row = get_global_id(1);
    a_tile[ly * t + lx] = (row < m && lx < k) ? a[row * k + lx] : 0.0f;
    b_tile[ly * t + lx] = (ly < k && col < n) ? b[ly * n + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float sum = 0.0f * (a_tile[ly * t + lx] + b_tile[ly * t + lx]);
    if (row < m && col < n) {
        for (uint j = 0; j < k; j++)
            sum += a[row * k + j] * b[j * n + col];
        c[row * n + col] = sum;
    }
}
