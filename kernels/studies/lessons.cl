// Lessons of the sources that need a kernel of their own: the work-group size (notebook 02),
// costly instructions (notebook 11), images with normalized coordinates and linear filtering
// (notebook 03), and host and device busy at once (notebook 07).

// y = a x + y over n floats: the kernel whose throughput the work-group size changes.
__kernel void saxpy(__global const float *x, __global float *y, const float a, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}

// Integer division and remainder, ROUNDS times per element: by a divisor known only at run time
// (DIVIDE_BY_ARGUMENT), by the constant 8 the compiler sees, or written as a shift and a mask.
// The three compute the same numbers when d is 8.
#if defined(DIVIDE_BY_ARGUMENT)
#define QUOT(v) ((v) / d)
#define REM(v) ((v) % d)
#elif defined(SHIFT_AND_MASK)
#define QUOT(v) ((v) >> 3)
#define REM(v) ((v) & 7u)
#else
#define QUOT(v) ((v) / 8u)
#define REM(v) ((v) % 8u)
#endif
__kernel void int_divide(__global const uint *x, __global uint *y, const uint n, const uint d,
                         const uint rounds)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    uint v = x[i];
    for (uint r = 0; r < rounds; ++r)
        v = QUOT(v) + REM(v) * 1664525u + r;
    y[i] = v;
}

// The rounding error of a product: p = a * b rounded to a float, then a * b - p computed once
// as two roundings (the multiply, then the subtract: always 0) and once as one fused
// multiply-add, fma(a, b, -p), which rounds only at the end: the part of a * b that p lost.
#pragma OPENCL FP_CONTRACT OFF
__kernel void product_error(__global const float *a, __global const float *b,
                            __global float *separate, __global float *fused, const uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float p = a[i] * b[i];
    separate[i] = a[i] * b[i] - p;
    fused[i] = fma(a[i], b[i], -p);
}

// An image scaled up by linear filtering: normalized coordinates (0 to 1 across the image,
// whatever its size) and CLK_FILTER_LINEAR, so each read mixes the 4 nearest pixels.
__kernel void upscale_linear(__read_only image2d_t src, __global float *dst, const uint width,
                             const uint height)
{
    const sampler_t smp = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE |
                          CLK_FILTER_LINEAR;
    const uint x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    const float2 at = (float2)((x + 0.5f) / width, (y + 0.5f) / height);
    dst[y * width + x] = read_imagef(src, smp, at).x;
}

// Du et al.'s image as padding: m is a rows x cols matrix stored in an RGBA float image of
// ceil(cols / 4) texels per row. Each work-item takes its row's dot product with v two texels at
// a time and never tests for the end: a texel read past the image's width comes back as zero
// (CLK_ADDRESS_CLAMP), so the last, odd texel adds nothing. v holds a multiple of 8 floats.
__kernel void image_row_dot(__read_only image2d_t m, __global const float4 *v,
                            __global float *w, const uint rows, const uint texels)
{
    const sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
    const uint row = get_global_id(0);
    if (row >= rows)
        return;
    float4 acc = (float4)(0.0f);
    for (uint t = 0; t < texels; t += 2) {
        acc += read_imagef(m, smp, (int2)(t, row)) * v[t];
        acc += read_imagef(m, smp, (int2)(t + 1, row)) * v[t + 1];
    }
    w[row] = acc.x + acc.y + acc.z + acc.w;
}

// Work for the host and the device at once: a polynomial of degree DEGREE by Horner's rule,
// y[i] = ((c x + c) x + c) ... with c = 1 / (k + 1): the device takes the first part of x, numpy
// the rest.
#ifndef DEGREE
#define DEGREE 32
#endif
__kernel void polynomial(__global const float *x, __global float *y, const uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float t = x[i];
    float v = 0.0f;
    for (int k = DEGREE; k >= 0; --k)
        v = v * t + 1.0f / (k + 1);
    y[i] = v;
}
