// Solution of bank_fix: the tile gets one unused float after every record (a row of 33), so
// record r starts in bank r % 32. At every step f the 32 work-items of a warp then read 32
// different banks. (Reading field (f + lid) % 32 of an unpadded tile would also do: that
// reorders the reads instead of moving the data.)
#define FIELDS 32
#define ROW (FIELDS + 1)

__kernel void bank_fix(__global const float *records, __global float *sums, const uint n,
                       __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint first = get_group_id(0) * size;
    const uint count = first < n ? min(size, n - first) : 0;
    for (uint i = lid; i < size * FIELDS; i += size)   // float i of the group's records
        tile[i / FIELDS * ROW + i % FIELDS] = i < count * FIELDS ? records[first * FIELDS + i]
                                                                  : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (uint f = 0; f < FIELDS; ++f)
        s += tile[lid * ROW + f];
    if (lid < count)
        sums[first + lid] = s;
}
