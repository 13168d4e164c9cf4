/* RIGHT: the padding is computed as one gap after every 32 floats (tile[i + i / 32]), and only the rows of real records are copied and summed.
 * Float i of the group goes to i + (i >> 5) = (i / 32) * 33 + i % 32, so row r starts at r * 33,
 * computed as (lid << 5) + lid. Rows past n are never written and never read; every work-item still
 * reaches the barrier.
 */
__kernel void bank_fix(__global const float *records, __global float *sums, const uint n,
                       __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint first = get_group_id(0) * size;
    const uint count = first < n ? min(size, n - first) : 0;
    const uint total = count * 32;
    for (uint i = lid; i < total; i += size)
        tile[i + (i >> 5)] = records[first * 32 + i];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < count) {
        const uint row = (lid << 5) + lid;
        float s = 0.0f;
        for (uint f = 0; f < 32; ++f)
            s += tile[row + f];
        sums[first + lid] = s;
    }
}
