// Notebooks 05, 15 and 16: the sources' hardware beside today's (helpers/studies/then_and_now.py).
//
// Each pair below runs the same work two ways, so that a device shows which of the sources'
// lessons still hold on it:
//   fma_scalar / fma_vector     one float per work-item, or a float4 per work-item and a quarter
//                               of the work-items: the whitepaper's "scalar architecture" (000 line 265)
//   spin                        one small work-group of dependent arithmetic: several launched at
//                               once show whether the device runs kernels concurrently (000 line 56,
//                               004 line 152)
//   gemm_buffers / gemm_images  C = A B with A and B read from buffers or from images (the texture
//                               path of Du et al., 004 lines 166-178), each naive or tiled
//   barrier_rounds              a barrier every few instructions, at any work-group size: what a
//                               barrier costs as the work-group grows (001 lines 602, 853)
//   sum_tree / sum_subgroups    a work-group's sum through local memory, or through sub-group
//                               functions where the driver has them (optional in OpenCL 3.0;
//                               built with -DHAVE_SUBGROUPS)
//
// The kernels above the #if also compile as CUDA (tools/cuda_twins.py): fma_vector, the images
// and the sub-groups are left out there (CUDA's float4 has no OpenCL vector operators).

#define TILE 16

__kernel void fma_scalar(__global float *out, const uint rounds)
{
    size_t i = get_global_id(0);
    float a = (float)(i & 7) * 0.125f, b = 0.999f, c = 0.001f;
    for (uint r = 0; r < rounds; r++) {
        a = a * b + c;
        a = a * b + c;
        a = a * b + c;
        a = a * b + c;
    }
    out[i] = a;
}

__kernel void spin(__global float *out, const uint rounds)
{
    size_t i = get_global_id(0);
    float a = (float)get_local_id(0) * 0.001f;
    for (uint r = 0; r < rounds; r++)
        a = a * 0.9999f + 0.0001f;
    out[i] = a;
}

// C (n x n) = A B, row-major; the range is n x n work-items (x the column, y the row), n a
// multiple of TILE.
__kernel void gemm_buffers(__global const float *a, __global const float *b, __global float *c,
                           const uint n)
{
    uint col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (uint k = 0; k < n; k++)
        acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}

__kernel void gemm_buffers_tiled(__global const float *a, __global const float *b,
                                 __global float *c, const uint n)
{
    __local float ta[TILE][TILE], tb[TILE][TILE];
    uint lx = get_local_id(0), ly = get_local_id(1);
    uint col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (uint k0 = 0; k0 < n; k0 += TILE) {
        ta[ly][lx] = a[row * n + k0 + lx];
        tb[ly][lx] = b[(k0 + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < TILE; k++)
            acc += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}

__kernel void barrier_rounds(__global const float *in, __global float *out, const uint rounds,
                             __local float *slot)
{
    size_t i = get_global_id(0);
    uint lid = get_local_id(0), size = get_local_size(0);
    float v = in[i];
    for (uint r = 0; r < rounds; r++) {
        slot[lid] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        v = 0.5f * v + 0.5f * slot[(lid + 1) % size];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[i] = v;
}

// One sum per work-group, the tree of notebook 12 (the local size a power of two).
__kernel void sum_tree(__global const float *in, __global float *partial, __local float *scratch)
{
    uint lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)

__kernel void fma_vector(__global float4 *out, const uint rounds)
{
    size_t i = get_global_id(0);
    // four work-items' worth of values: the lanes of one float4
    float4 a = (float4)((float)((4 * i) & 7), (float)((4 * i + 1) & 7), (float)((4 * i + 2) & 7),
                        (float)((4 * i + 3) & 7)) * 0.125f;
    float4 b = (float4)(0.999f), c = (float4)(0.001f);
    for (uint r = 0; r < rounds; r++) {
        a = a * b + c;
        a = a * b + c;
        a = a * b + c;
        a = a * b + c;
    }
    out[i] = a;
}


#ifdef __IMAGE_SUPPORT__
// The same products with A and B in single-channel float images: each read goes through the
// sampler (the texture path). Left out where the device has no images.
__constant sampler_t exact = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;

__kernel void gemm_images(__read_only image2d_t a, __read_only image2d_t b, __global float *c,
                          const uint n)
{
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < (int)n; k++)
        acc += read_imagef(a, exact, (int2)(k, row)).x * read_imagef(b, exact, (int2)(col, k)).x;
    c[row * n + col] = acc;
}

__kernel void gemm_images_tiled(__read_only image2d_t a, __read_only image2d_t b,
                                __global float *c, const uint n)
{
    __local float ta[TILE][TILE], tb[TILE][TILE];
    int lx = get_local_id(0), ly = get_local_id(1);
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int k0 = 0; k0 < (int)n; k0 += TILE) {
        ta[ly][lx] = read_imagef(a, exact, (int2)(k0 + lx, row)).x;
        tb[ly][lx] = read_imagef(b, exact, (int2)(col, k0 + ly)).x;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}
#endif

#ifdef HAVE_SUBGROUPS
#pragma OPENCL EXTENSION cl_khr_subgroups : enable

// One sum per work-group: each sub-group adds its values with one call, its first work-item
// leaves the result in local memory, and the first sub-group adds those (one barrier, not log2 n).
__kernel void sum_subgroups(__global const float *in, __global float *partial,
                            __local float *scratch)
{
    float mine = sub_group_reduce_add(in[get_global_id(0)]);
    uint sg = get_sub_group_id(), lane = get_sub_group_local_id();
    if (lane == 0)
        scratch[sg] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sg == 0) {
        float t = 0.0f;
        for (uint k = lane; k < get_num_sub_groups(); k += get_sub_group_size())
            t += scratch[k];
        t = sub_group_reduce_add(t);
        if (lane == 0)
            partial[get_group_id(0)] = t;
    }
}

#endif
#endif
