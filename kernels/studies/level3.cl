// Notebooks 08-10's performance exercises start from these kernels: correct, and slow on a GPU for a
// reason the exercise names. The check times them beside the learner's kernel and the solution.

// strided_fix starts here: one contiguous chunk of the arrays per work-item. At every step of
// the loop neighbouring work-items touch addresses `per` floats apart.
__kernel void saxpy_chunks(__global const float *x, __global float *y, const float a,
                           const uint n)
{
    const uint per = (n + get_global_size(0) - 1) / get_global_size(0);
    const uint first = get_global_id(0) * per;
    const uint last = min(first + per, n);
    for (uint i = first; i < last; ++i)
        y[i] = a * x[i] + y[i];
}

// divergence_fix starts here: even and odd work-items take different loops, so every warp runs
// both of them.
__kernel void branches_woven(__global const float *x, __global float *y, const uint n,
                             const uint rounds)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    float v = x[i];
    if (i % 2 == 0)
        for (uint r = 0; r < rounds; ++r)
            v = 0.9f * v + 0.1f;
    else
        for (uint r = 0; r < rounds; ++r)
            v = 0.25f * v * v - 0.5f;
    y[i] = v;
}
