// WRONG: the technique is missing: each work-item copies its record into its own row of the tile, rows 32
// floats apart (no padding), then sums its row. Right values, but a warp reading field k of 32
// records reads 32 words of one bank: 32-way conflicts.
__kernel void bank_fix(__global const float *records, __global float *sums, const uint n,
                       __local float *tile)
{
    const uint lid = get_local_id(0), r = get_global_id(0);
    if (r < n)
        for (uint k = 0; k < 32; ++k)
            tile[lid * 32 + k] = records[r * 32 + k];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (r >= n)
        return;
    float s = 0.0f;
    for (uint k = 0; k < 32; ++k)
        s += tile[lid * 32 + k];
    sums[r] = s;
}
