/* RIGHT: the tile is left unpadded and each work-item reads its record starting at field lid % 32, so the 32 reads of a warp fall in 32 different banks.
 * Field (f + lid) & 31 of row lid lies at lid * 32 + ((f + lid) & 31), in bank (f + lid) % 32.
 * Signed int counters throughout; every row of the tile is written (zeros past n) before the barrier.
 */
__kernel void bank_fix(__global const float *records, __global float *sums, const uint n,
                       __local float *tile)
{
    const int lid = (int)get_local_id(0);
    const int size = (int)get_local_size(0);
    const uint first = get_group_id(0) * (uint)size;
    const int count = first < n ? (int)min((uint)size, n - first) : 0;
    for (int i = lid; i < size * 32; i += size)
        tile[i] = i < count * 32 ? records[first * 32 + (uint)i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (int f = 0; f < 32; ++f)
        s += tile[lid * 32 + ((f + lid) & 31)];
    if (lid < count)
        sums[first + (uint)lid] = s;
}
