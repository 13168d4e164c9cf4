// RIGHT: the tile column-major (field f of record r at f*size + r): at each step a warp reads 32 consecutive floats
__kernel void bank_fix(__global const float *records,
                       __global float *sums,
                       const uint n,
                       __local float *tile)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    const uint first = get_group_id(0) * size;
    const uint count = first < n ? min(size, n - first) : 0;
    for (uint i = lid; i < size * 32; i += size)
        tile[(i % 32) * size + i / 32] = i < count * 32 ? records[first * 32 + i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (uint f = 0; f < 32; ++f)
        s += tile[f * size + lid];
    if (lid < count) sums[first + lid] = s;
}
