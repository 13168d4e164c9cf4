/* WRONG: the copy leaves the padding float at the end of each row but the sum skips one float at the start of each row, as if the padding were in front, so it adds the padding and drops field 0.
 * Mistake: `tile[lid * 33 + 1 + f]` for f = 0..31: reads fields 1..31 and the never-written padding
 *   float lid * 33 + 32.
 * Shows: every sums[r] lacks records[r * 32] and gains an uninitialised local float.
 */
__kernel void bank_fix(__global const float *records, __global float *sums, const uint n,
                       __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint first = get_group_id(0) * size;
    const uint count = first < n ? min(size, n - first) : 0;
    for (uint i = lid; i < size * 32; i += size)
        tile[i / 32 * 33 + i % 32] = i < count * 32 ? records[first * 32 + i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (uint f = 0; f < 32; ++f)
        s += tile[lid * 33 + 1 + f];
    if (lid < count)
        sums[first + lid] = s;
}
