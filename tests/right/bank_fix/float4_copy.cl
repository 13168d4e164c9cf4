// RIGHT: the copy reads float4s (neighbouring work-items on neighbouring float4s), stored into rows of 33; sum read per float
__kernel void bank_fix(__global const float *records,
                       __global float *sums,
                       const uint n,
                       __local float *tile)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    const uint first = get_group_id(0) * size;
    const uint count = first < n ? min(size, n - first) : 0;
    __global const float4 *src = (__global const float4 *)(records + (size_t)first * 32);
    for (uint q = lid; q < size * 8; q += size) {      // 8 float4 per record
        const uint r = q / 8, f = (q % 8) * 4;
        const float4 v = r < count ? src[q] : (float4)(0.0f);
        __local float *dst = tile + r * 33 + f;
        dst[0] = v.x; dst[1] = v.y; dst[2] = v.z; dst[3] = v.w;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (uint f = 0; f < 32; ++f)
        s += tile[lid * 33 + f];
    if (lid < count) sums[first + lid] = s;
}
