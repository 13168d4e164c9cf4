// A TILE x (TILE + PAD) local tile written along rows, then read down its columns (a transpose's
// second half). Work-group TILE x TILE.
__kernel void tile(__global const float *in, __global float *out)
{
    __local float t[TILE][TILE + PAD];
    size_t x = get_local_id(0), y = get_local_id(1);
    size_t gx = get_global_id(0), gy = get_global_id(1), w = get_global_size(0);
    t[y][x] = in[gy * w + gx];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gy * w + gx] = t[x][y];
}
