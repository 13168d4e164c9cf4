/* WRONG: the copy loads all local-size x 32 floats of the work-group from global memory, so in the last work-group it reads the records past n, beyond the end of `records`.
 * Mistake: the `i < count * 32 ? ... : 0.0f` guard of the copy was dropped because the store of the
 *   sum is guarded anyway; the values are right but the loads are not.
 * Shows: whenever n is not a multiple of the local size: out-of-bounds reads of records in the last
 *   work-group (the sums themselves come out right).
 */
__kernel void bank_fix(__global const float *records, __global float *sums, const uint n,
                       __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint first = get_group_id(0) * size;
    for (uint i = lid; i < size * 32; i += size)
        tile[i + i / 32] = records[first * 32 + i];
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (uint f = 0; f < 32; ++f)
        s += tile[lid * 33 + f];
    if (first + lid < n)
        sums[first + lid] = s;
}
