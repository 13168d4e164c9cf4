/* WRONG: the copy reads records[i] without the work-group's offset first * 32, so every work-group sums the records of work-group 0 and stores them as its own.
 * Mistake: `records[i]` instead of `records[first * 32 + i]`; `first` is still used for count and
 *   for the store, so nothing is out of bounds.
 * Shows: sums[r] for every r >= local size (every work-group but the first); with a single
 *   work-group it is right.
 */
__kernel void bank_fix(__global const float *records, __global float *sums, const uint n,
                       __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint first = get_group_id(0) * size;
    const uint count = first < n ? min(size, n - first) : 0;
    for (uint i = lid; i < size * 32; i += size)
        tile[i / 32 * 33 + i % 32] = i < count * 32 ? records[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (uint f = 0; f < 32; ++f)
        s += tile[lid * 33 + f];
    if (lid < count)
        sums[first + lid] = s;
}
