// Exercise bank_fix (notebook 09): records holds n records of 32 floats (record r at
// records[r * 32 .. r * 32 + 31]); sums[r] must be the sum of record r. One work-item per record;
// the global size may exceed n. `tile` holds local size x 33 floats.
//
// The kernel below (kernels/studies/banks.cl, `record_sums_conflicted`) is correct. Reading its
// record straight from global memory, a warp's 32 work-items would read floats 32 apart
// (strided), so each work-group first copies its records into the tile with neighbouring
// work-items on neighbouring floats; then each work-item sums its own record from the tile:
//
//     const uint lid = get_local_id(0), size = get_local_size(0);
//     const uint first = get_group_id(0) * size;             // the work-group's first record
//     const uint count = first < n ? min(size, n - first) : 0;
//     for (uint i = lid; i < size * 32; i += size)
//         tile[i] = i < count * 32 ? records[first * 32 + i] : 0.0f;
//     barrier(CLK_LOCAL_MEM_FENCE);
//     float s = 0.0f;
//     for (uint f = 0; f < 32; ++f)
//         s += tile[lid * 32 + f];
//     if (lid < count) sums[first + lid] = s;
//
// Local memory is split into 32 banks (float w in bank w % 32). At step f the 32 work-items of a
// warp read tile[lid * 32 + f]: 32 different floats, all in bank f, served one after the other
// (a 32-way bank conflict). Change where the floats lie in the tile, or the order in which they
// are read, so that the warp's 32 reads fall in 32 different banks; the result stays the same.
//
// Check it with check("bank_fix"): the verdict measures your kernel beside the one above.

__kernel void bank_fix(__global const float *records,
                       __global float *sums,
                       const uint n,
                       __local float *tile)
{
    // TODO
}
