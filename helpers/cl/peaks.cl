// Device peaks: global-memory bandwidth at several vector widths, as clpeak measures it, and
// arithmetic throughput from CHAINS independent chains of multiply-adds per work-item (plus the
// single dependent chain, kept to show what latency costs). VEC is float, float2, float4, float8
// or float16, set by the host at build time (-DVEC=float4 -DWIDTH=4).

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

// Latency: one chain per work-item, x and y feeding each other, so each multiply-add waits for the
// one before it. A GPU hides that wait behind thousands of other work-items; a CPU runtime packs 8
// or 16 work-items into one vector register and then waits about 4 cycles per multiply-add, so on
// a CPU this kernel measures the latency of its FMA unit, not its throughput. ROUNDS rounds of 32
// multiply-adds (notebook 05's dual-pipeline model in one kernel).
#define MAD_4(x, y)  x = mad(y, x, y); y = mad(x, y, x); x = mad(y, x, y); y = mad(x, y, x);
#define MAD_16(x, y) MAD_4(x, y) MAD_4(x, y) MAD_4(x, y) MAD_4(x, y)

__kernel void mad_chain(__global float *out, const float seed, const int rounds)
{
    VEC x = (VEC)(seed * get_local_id(0));
    VEC y = (VEC)((float)get_global_id(0));
    for (int r = 0; r < rounds; ++r) {
        MAD_16(x, y)
        MAD_16(x, y)
    }
    out[get_global_id(0)] = HSUM(y);
}

// Throughput, the yardstick: eight chains that do not depend on each other, so that a pipeline
// always has an independent multiply-add to issue (a CPU core keeps 8 in flight across its two FMA
// units; a GPU gets them from other work-items too). v = v * a + b with a just under 1 converges to
// b / (1 - a): values stay normal (no denormals, no overflow), and the runtime arguments a and b
// keep the compiler from folding the loop. Each round is 16 steps of all 8 chains.
#define STEP8 c0 = mad(c0, a, b); c1 = mad(c1, a, b); c2 = mad(c2, a, b); c3 = mad(c3, a, b); \
              c4 = mad(c4, a, b); c5 = mad(c5, a, b); c6 = mad(c6, a, b); c7 = mad(c7, a, b);
#define STEP8x4 STEP8 STEP8 STEP8 STEP8

__kernel void mad_throughput(__global float *out, const float a, const float b, const int rounds)
{
    const float g = (float)get_global_id(0) * 1e-6f;
    VEC c0 = (VEC)(g), c1 = (VEC)(g + 0.125f), c2 = (VEC)(g + 0.25f), c3 = (VEC)(g + 0.375f);
    VEC c4 = (VEC)(g + 0.5f), c5 = (VEC)(g + 0.625f), c6 = (VEC)(g + 0.75f), c7 = (VEC)(g + 0.875f);
    for (int r = 0; r < rounds; ++r) {
        STEP8x4 STEP8x4 STEP8x4 STEP8x4
    }
    out[get_global_id(0)] = HSUM(((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)));
}
