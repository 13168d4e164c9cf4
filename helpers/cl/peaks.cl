// Device peaks, measured the way clpeak does: global-memory bandwidth at several vector
// widths, and compute from chains of dependent multiply-adds. VEC is float, float2, float4,
// float8 or float16, set by the host at build time (-DVEC=float4 -DWIDTH=4).

// The sum of a vector's components (every component used, so no load can be narrowed).
#if WIDTH == 1
#define HSUM(v) (v)
#elif WIDTH == 2
#define HSUM(v) ((v).x + (v).y)
#elif WIDTH == 4
#define HSUM(v) dot((v), (float4)(1.0f))
#elif WIDTH == 8
#define HSUM(v) dot((v).lo + (v).hi, (float4)(1.0f))
#else
#define HSUM(v) dot((v).lo.lo + (v).lo.hi + (v).hi.lo + (v).hi.hi, (float4)(1.0f))
#endif

// Bandwidth: each work-item reads `per` vectors, one every get_global_size(0), so that at every
// step neighbouring work-items read neighbouring vectors (coalesced), and writes one float.
__kernel void read_bandwidth(__global const VEC *in, __global float *out, const uint per)
{
    const uint step = get_global_size(0);
    uint i = get_global_id(0);
    VEC sum = (VEC)(0.0f);
    for (uint k = 0; k < per; ++k, i += step)
        sum += in[i];
    // One float out per work-item keeps the reads alive; its size is small beside the input.
    out[get_global_id(0)] = HSUM(sum);
}

// The same reads in contiguous chunks, one chunk per work-item: what a CPU's caches and
// prefetchers want (the strided form above is what a GPU wants). The peak is the better of the two.
__kernel void read_bandwidth_chunked(__global const VEC *in, __global float *out, const uint per)
{
    uint i = get_global_id(0) * per;
    VEC sum = (VEC)(0.0f);
    for (uint k = 0; k < per; ++k, ++i)
        sum += in[i];
    out[get_global_id(0)] = HSUM(sum);
}

__kernel void copy_bandwidth(__global const VEC *in, __global VEC *out)
{
    const uint i = get_global_id(0);
    out[i] = in[i];
}

// Compute: two chains of dependent multiply-adds, interleaved so that a pipeline always has an
// independent instruction to issue. ROUNDS rounds of 16 mads per chain.
#define MAD_4(x, y)  x = mad(y, x, y); y = mad(x, y, x); x = mad(y, x, y); y = mad(x, y, x);
#define MAD_16(x, y) MAD_4(x, y) MAD_4(x, y) MAD_4(x, y) MAD_4(x, y)

__kernel void mad_chain(__global float *out, const float seed)
{
    VEC x = (VEC)(seed * get_local_id(0));
    VEC y = (VEC)((float)get_global_id(0));
    for (int r = 0; r < ROUNDS; ++r) {
        MAD_16(x, y)
        MAD_16(x, y)
    }
    out[get_global_id(0)] = HSUM(y);
}
