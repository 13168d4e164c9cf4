// WRONG: right values, but the tile is a decoy: each work-item puts its float in it and reads it
// back, then reads it again from global memory and writes it down a column of out (uncoalesced).
__kernel void transpose(__global const float *in, __global float *out, const uint width,
                        const uint height, __local float *tile)
{
    const uint x = get_global_id(0), y = get_global_id(1);
    const uint lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    tile[lid] = (x < width && y < height) ? in[y * width + x] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    const float mine = tile[lid];
    if (x < width && y < height)
        out[x * height + y] = in[y * width + x] + 0.0f * mine;
}
