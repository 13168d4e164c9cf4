// Notebook 05: thread-, instruction- and memory-level parallelism measured.

// Instruction-level parallelism: CHAINS (1 to 4, set at build time) independent chains of
// multiply-adds per work-item. In one chain every mad waits for the one before it; with
// several, the pipeline can take the next chain's mad while the previous one completes.
#ifndef CHAINS
#define CHAINS 1
#endif
__kernel void ilp(__global float *out, const float a, const float b, const uint rounds)
{
    const float start = (float)(get_global_id(0) % 1024) * 1e-3f;
    float x0 = start, x1 = start + 0.25f, x2 = start + 0.5f, x3 = start + 0.75f;
    for (uint r = 0; r < rounds; ++r) {
        x0 = mad(x0, a, b);
#if CHAINS > 1
        x1 = mad(x1, a, b);
#endif
#if CHAINS > 2
        x2 = mad(x2, a, b);
#endif
#if CHAINS > 3
        x3 = mad(x3, a, b);
#endif
    }
    float sum = x0;
#if CHAINS > 1
    sum += x1;
#endif
#if CHAINS > 2
    sum += x2;
#endif
#if CHAINS > 3
    sum += x3;
#endif
    out[get_global_id(0)] = sum;
}

// Memory-level parallelism: each work-item has LOADS independent loads of a VEC (float,
// float2 or float4; WIDTH its number of floats) in flight at each step of a grid-stride loop
// over `count` vectors. Load k of a step reads vector i + k * global size: coalesced.
#ifndef VEC
#define VEC float
#define WIDTH 1
#endif
#ifndef LOADS
#define LOADS 1
#endif
#if WIDTH == 1
#define HSUM(v) (v)
#elif WIDTH == 2
#define HSUM(v) ((v).x + (v).y)
#else
#define HSUM(v) ((v).x + (v).y + (v).z + (v).w)
#endif
__kernel void mlp(__global const VEC *src, __global float *out, const uint count)
{
    const uint step = get_global_size(0);
    VEC acc = (VEC)(0.0f);
    for (uint i = get_global_id(0); i < count; i += LOADS * step) {
        VEC got[LOADS];
#pragma unroll
        for (uint k = 0; k < LOADS; ++k) {  // issue every load before using any
            const uint at = i + k * step;
            got[k] = at < count ? src[at] : (VEC)(0.0f);
        }
#pragma unroll
        for (uint k = 0; k < LOADS; ++k)
            acc += got[k];
    }
    out[get_global_id(0)] = HSUM(acc);
}
