// WRONG: each work-item copies its own record into a padded row: the global reads are 32 floats apart (uncoalesced)
__kernel void bank_fix(__global const float *records,
                       __global float *sums,
                       const uint n,
                       __local float *tile)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    const uint r = get_global_id(0);
    for (uint f = 0; f < 32; ++f)
        tile[lid * 33 + f] = r < n ? records[(size_t)r * 32 + f] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (uint f = 0; f < 32; ++f)
        s += tile[lid * 33 + f];
    if (r < n) sums[r] = s;
}
