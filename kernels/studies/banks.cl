// Notebook 09, "Local-memory banks": local memory is split into 32 banks, 4-byte word w in bank
// w % 32. A warp's read takes as many passes as the most different words one bank must serve:
// one when its 32 work-items touch 32 different banks; lanes that read the same word share one
// access (a broadcast; on NVIDIA since Fermi, whether all lanes read it or only some); k different
// words in one bank are a k-way conflict, k passes, up to k times as long (the H100 measured 1.15
// times for 2-way, 16.9 for 32-way).

// Each work-item reads `reads` words of a tile of mask + 1 floats (a power of two), at local id
// x stride (+ r), wrapped by the mask: stride 1 is conflict-free, stride 2 a 2-way conflict, ...
// stride 32 a 32-way one; stride 0 has every work-item read the same word (a broadcast), stride
// 33 is 32 apart plus one (conflict-free again, as the padded tile of transpose). out[i] is the
// sum of what work-item i read.
__kernel void local_stride(__global float *out, const uint stride, const uint reads,
                           __local float *tile, const uint mask)
{
    const uint lid = get_local_id(0);
    for (uint w = lid; w <= mask; w += get_local_size(0))
        tile[w] = (float)(w % 7);
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = 0.0f;
    const uint at = lid * stride;
    for (uint r = 0; r < reads; ++r)
        acc += tile[(at + r) & mask];
    out[get_global_id(0)] = acc;
}

// bank_fix starts here. records holds n records of 32 floats (record r at [r * 32]); sums[r] is
// the sum of record r. Reading its own record straight from global memory would put a warp's
// reads 32 floats apart (strided), so each work-group first copies its records into `tile`
// with neighbouring work-items on neighbouring floats, then each work-item sums its record
// there. That second step reads tile[lid * 32 + f]: at every f all 32 work-items of a warp hit
// the same bank, a 32-way conflict.
#define FIELDS 32

__kernel void record_sums_conflicted(__global const float *records, __global float *sums,
                                     const uint n, __local float *tile)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const uint first = get_group_id(0) * size;        // this work-group's first record
    const uint count = first < n ? min(size, n - first) : 0;
    for (uint i = lid; i < size * FIELDS; i += size)
        tile[i] = i < count * FIELDS ? records[first * FIELDS + i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (uint f = 0; f < FIELDS; ++f)
        s += tile[lid * FIELDS + f];
    if (lid < count)
        sums[first + lid] = s;
}
