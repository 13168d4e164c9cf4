/* WRONG: the copy writes rows of 33 floats but the sum still reads rows of 32, so every record but the first is read shifted into its neighbour's data and the padding floats.
 * Mistake: `tile[lid * 32 + f]` left over from the conflicted kernel after the copy was changed to
 *   rows of 33. Row lid is read at lid * 32 = lid * 33 - lid onwards: for 0 < lid < 32 that is the
 *   last lid - 1 fields and the padding float of row lid - 1, then the first 32 - lid fields of
 *   record lid (further rows are off by more).
 * Shows: sums[r] for every r that is not the first of its work-group; also reads the never-written
 *   padding float of the previous row. With local size 1 it is right.
 */
#define FIELDS 32
#define ROW (FIELDS + 1)

__kernel void bank_fix(__global const float *records, __global float *sums, const uint n,
                       __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint first = get_group_id(0) * size;
    const uint count = first < n ? min(size, n - first) : 0;
    for (uint i = lid; i < size * FIELDS; i += size)
        tile[i / FIELDS * ROW + i % FIELDS] = i < count * FIELDS ? records[first * FIELDS + i]
                                                                  : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (uint f = 0; f < FIELDS; ++f)
        s += tile[lid * FIELDS + f];
    if (lid < count)
        sums[first + lid] = s;
}
