// Correct but untiled: every operand read from global memory (the ladder's first rung with the
// exercise's arguments). It must pass; its speed is reported beside the solution's.
__kernel void sgemm_tiled(__global const float *a, __global const float *b, __global float *c,
                          const uint m, const uint n, const uint k,
                          __local float *a_tile, __local float *b_tile)
{
    const uint col = get_global_id(0), row = get_global_id(1);
    if (row >= m || col >= n)
        return;
    float sum = 0.0f;
    for (uint j = 0; j < k; j++)
        sum += a[row * k + j] * b[j * n + col];
    c[row * n + col] = sum;
}
