// Exercise strided_fix (notebook 08): y[i] = a * x[i] + y[i] for every i < n, launched with
// fewer work-items than elements, as in sum_ints_multi.
//
// The kernel below (kernels/studies/level3.cl, `saxpy_chunks`) is correct and gives each
// work-item one contiguous chunk of the arrays:
//
//     const uint per = (n + get_global_size(0) - 1) / get_global_size(0);
//     const uint first = get_global_id(0) * per;
//     for (uint i = first; i < min(first + per, n); ++i)
//         y[i] = a * x[i] + y[i];
//
// At every step of the loop, neighbouring work-items read addresses `per` floats apart: on a GPU
// a warp's 32 reads then touch 32 different memory segments instead of one. Rewrite it so that
// at every step neighbouring work-items read neighbouring elements; the result stays the same.
//
// Check it with check("strided_fix"): the verdict measures your kernel beside the one above.

__kernel void strided_fix(__global const float *x,
                          __global float *y,
                          const float a,
                          const uint n)
{
    // TODO
}
