// Notebooks 08 and 11: memory access patterns, each measured.

// Strided reads: dst[i] = src[j] where j walks src with `stride` floats between neighbouring
// work-items (src read as a (n / stride) x stride matrix, column after column). Every element is
// read once and written once whatever the stride: only the order changes. n % stride == 0.
__kernel void strided_copy(__global const float *src, __global float *dst, const uint n,
                           const uint stride)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const uint rows = n / stride;
    dst[i] = src[(i % rows) * stride + i / rows];
}

// Array of structs against struct of arrays.
typedef struct {
    float a, b, c;
} triple;

// One field of each struct: a warp's reads of `a` are 12 bytes apart.
__kernel void aos_one(__global const triple *t, __global float *out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        out[i] = 2.0f * t[i].a;
}

__kernel void soa_one(__global const float *a, __global const float *b, __global const float *c,
                      __global float *out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        out[i] = 2.0f * a[i];
}

// Every field: the same bytes either way, read in a different order.
__kernel void aos_all(__global const triple *t, __global float *out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        out[i] = t[i].a + t[i].b * t[i].c;
}

__kernel void soa_all(__global const float *a, __global const float *b, __global const float *c,
                      __global float *out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        out[i] = a[i] + b[i] * c[i];
}

// Transpose of a height x width matrix (out is width x height).
// Naive: reads coalesced along a row, writes `height` floats apart.
__kernel void transpose_naive(__global const float *in, __global float *out, const uint width,
                              const uint height)
{
    const uint x = get_global_id(0), y = get_global_id(1);
    if (x < width && y < height)
        out[(size_t)x * height + y] = in[(size_t)y * width + x];
}

// Through a 32 x 32 tile in local memory: read a tile row by row, write it column by column,
// both coalesced. Work-groups of 32 x 8, each work-item moving 4 elements. Reading a column of
// the tile hits one bank 32 times over, unless each row is padded to 33 floats (PAD=1 at build).
#ifndef PAD
#define PAD 0
#endif
__kernel void transpose_tiled(__global const float *in, __global float *out, const uint width,
                              const uint height)
{
    __local float tile[32][32 + PAD];
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint x0 = get_group_id(0) * 32, y0 = get_group_id(1) * 32;
    for (uint k = ly; k < 32; k += 8) {
        const uint x = x0 + lx, y = y0 + k;
        if (x < width && y < height)
            tile[k][lx] = in[(size_t)y * width + x];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = ly; k < 32; k += 8) {
        const uint x = y0 + lx, y = x0 + k;  // out's column x, row y
        if (x < height && y < width)
            out[(size_t)y * height + x] = tile[lx][k];
    }
}

// Constant memory: every work-item of a warp reads the same tap at the same time. The taps
// come through __constant (a broadcast cache) or through __global.
#define TAPS 16
__kernel void taps_constant(__global const float *x, __global float *y, const uint n,
                            __constant float *taps)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    float sum = 0.0f;
    for (uint k = 0; k < TAPS; ++k)
        sum += taps[k] * x[min(i + k, n - 1)];
    y[i] = sum;
}

__kernel void taps_global(__global const float *x, __global float *y, const uint n,
                          __global const float *taps)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    float sum = 0.0f;
    for (uint k = 0; k < TAPS; ++k)
        sum += taps[k] * x[min(i + k, n - 1)];
    y[i] = sum;
}

// The same question where the coefficients' reads are most of the loads: a polynomial of degree
// DEGREE by Horner's rule on one x per work-item, x kept in a register, every step reading one
// coefficient that is the same for the whole warp, through __constant or through __global.
#ifndef DEGREE
#define DEGREE 128
#endif
__kernel void poly_constant(__global const float *x, __global float *y, const uint n,
                            __constant float *coef)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float v = x[i];
    float acc = coef[DEGREE];
#pragma unroll
    for (int k = DEGREE - 1; k >= 0; --k)
        acc = fma(acc, v, coef[k]);
    y[i] = acc;
}

__kernel void poly_global(__global const float *x, __global float *y, const uint n,
                          __global const float *coef)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float v = x[i];
    float acc = coef[DEGREE];
#pragma unroll
    for (int k = DEGREE - 1; k >= 0; --k)
        acc = fma(acc, v, coef[k]);
    y[i] = acc;
}

// Fast math: ROUNDS steps of a map built from sin and exp, with the full-precision functions,
// (NATIVE defined at build time) the hardware's approximations native_sin and native_exp, or
// (HALF) half_sin and half_exp, which OpenCL allows 8192 ulp of error (about 11 good bits).
#ifdef NATIVE
#define SIN native_sin
#define EXP native_exp
#elif defined(HALF)
#define SIN half_sin
#define EXP half_exp
#else
#define SIN sin
#define EXP exp
#endif
__kernel void transcendental(__global const float *x, __global float *y, const uint n,
                             const uint rounds)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    float v = x[i];
    for (uint r = 0; r < rounds; ++r)
        v = 0.5f * SIN(v) + 0.25f * EXP(-v * v);
    y[i] = v;
}

// Multiply-adds written as a * b + c. FP_CONTRACT is on by default in OpenCL C, so the compiler
// may fuse each pair into an fma without any flag; -cl-mad-enable also allows a faster `mad` of
// possibly lower accuracy. A polynomial by Horner's rule.
__kernel void horner(__global const float *x, __global float *y, const uint n, const uint rounds)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float t = x[i];
    float v = 0.0f;
    for (uint r = 0; r < rounds; ++r)
        v = v * t + 0.5f;
    y[i] = v;
}
