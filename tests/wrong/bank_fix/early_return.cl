/* WRONG: work-items past n return before the copy and the barrier, so in the last work-group the barrier is not reached by all work-items and the tile floats those work-items should have copied are never written.
 * Mistake: the usual `if (gid >= n) return;` put at the top of a kernel whose copy is shared: work-item
 *   lid copies floats lid, lid + size, ... of the whole group, which belong to every record of the
 *   group, not only to record lid.
 * Shows: the last work-group when n is not a multiple of the local size: a divergent barrier
 *   (undefined behaviour) and sums of that group built partly from uninitialised local memory.
 */
__kernel void bank_fix(__global const float *records, __global float *sums, const uint n,
                       __local float *tile)
{
    const uint gid = get_global_id(0);
    if (gid >= n)
        return;
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint first = get_group_id(0) * size;
    const uint count = min(size, n - first);
    for (uint i = lid; i < count * 32; i += size)
        tile[i / 32 * 33 + i % 32] = records[first * 32 + i];
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (uint f = 0; f < 32; ++f)
        s += tile[lid * 33 + f];
    sums[gid] = s;
}
