// Exercise float_copy: the "hello world" of OpenCL.
//
// Every work-item copies one element: dst[i] = src[i] for its own index i.
// The host launches at least n work-items (the global size is rounded up to a
// multiple of the work-group size), so some work-items have no element to copy.
//
// Check it from the notebook with check("float_copy"), or from a shell:
//     python -m helpers check float_copy

__kernel void float_copy(__global const float *src,
                         __global float *dst,
                         const uint n)
{
    // TODO: find this work-item's index, then copy one element if it is in range.
}
