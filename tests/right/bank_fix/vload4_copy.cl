/* RIGHT: the copy moves one float4 per work-item per iteration with vload4 into rows of 33 floats, and the sums read the padded rows.
 * Chunk q of the group (4 floats) belongs to record q / 8, fields 4 * (q % 8) .. + 3, so it never
 * straddles two records; it is stored as 4 floats because a padded row is not float4-aligned.
 * Chunks of records past n are zeros and are never loaded from global memory.
 */
__kernel void bank_fix(__global const float *records, __global float *sums, const uint n,
                       __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint first = get_group_id(0) * size;
    const uint count = first < n ? min(size, n - first) : 0;
    for (uint q = lid; q < size * 8; q += size) {
        const float4 v = q < count * 8 ? vload4(first * 8 + q, records) : (float4)(0.0f);
        __local float *dst = tile + (q / 8) * 33 + (q % 8) * 4;
        dst[0] = v.x;
        dst[1] = v.y;
        dst[2] = v.z;
        dst[3] = v.w;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (uint f = 0; f < 32; ++f)
        s += tile[lid * 33 + f];
    if (lid < count)
        sums[first + lid] = s;
}
