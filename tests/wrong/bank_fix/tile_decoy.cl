// WRONG: right sums, but the tile is a decoy: one float of each record goes through it, and the
// sum reads the record's 32 fields from global memory, a stride of 32 floats between lanes.
__kernel void bank_fix(__global const float *records, __global float *sums, const uint n,
                       __local float *tile)
{
    const uint i = get_global_id(0), lid = get_local_id(0);
    tile[lid] = i < n ? records[i * 32] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i >= n)
        return;
    float s = tile[lid];
    for (uint f = 1; f < 32; ++f)
        s += records[i * 32 + f];
    sums[i] = s;
}
